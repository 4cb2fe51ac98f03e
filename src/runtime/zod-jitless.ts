import { z } from 'zod';

/**
 * Import first, in the page and in each worker. Zod's JIT probes `new Function` once; our CSP
 * refuses it (and reports a violation) and we never want generated code anyway.
 */
z.config({ jitless: true });
