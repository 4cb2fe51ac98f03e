import { z } from 'zod/mini';
import { MAX_ID_LENGTH } from './schema-limits.ts';

// Apart from model-config.ts: the store's manifest and catalog schemas check ids on the first
// screen, and model-config's schemas would come with this rule (module-level zod calls are not
// tree-shaken; the initial JavaScript budget, e2e/serving.spec.ts).

/**
 * A model id: lowercase letters, digits, `.`, `_`, `-`, with at most one publisher namespace
 * (`acme/spam`), so a trust-store key can be scoped to every id under `acme/`.
 */
export const MODEL_ID = /^[a-z0-9][a-z0-9._-]*(?:\/[a-z0-9][a-z0-9._-]*)?$/;
export const MODEL_ID_RULE = 'lowercase letters, digits, . _ - and at most one namespace/';
export const ModelIdSchema = z.string().check(z.maxLength(MAX_ID_LENGTH), z.regex(MODEL_ID, `model id: ${MODEL_ID_RULE}`));
