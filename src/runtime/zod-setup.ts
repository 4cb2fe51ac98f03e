import { z } from 'zod/mini';
import en from 'zod/v4/locales/en.js';

/**
 * Import first, in the page and in each worker (schema.ts imports it too, for the tests and the
 * CLI). Zod's JIT probes `new Function` once; our CSP refuses it (and reports a violation) and we
 * never want generated code anyway.
 */
z.config({ jitless: true });

/**
 * zod/mini loads no messages (every issue would read "Invalid input"); ours reach users through
 * schema.ts. English unless a locale is already set: zod's config is global, shared by every copy
 * of zod on the page, and an app embedding Lantern that chose one keeps it (as classic zod did).
 */
if (!z.config().localeError) z.config(en());
