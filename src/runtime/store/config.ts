import { z } from 'zod/mini';
import { parseSchema } from '../schema.ts';

/**
 * Deployment configuration of the registry (`registry-config.json`, next to the app), emitted
 * at build time from LANTERN_CATALOG_URL / LANTERN_ALLOWED_ORIGINS. Its companion is
 * `trust-store.json` (trust.ts). Both are served files, not code, so a deployer can edit them.
 */
export const RegistryConfigSchema = z.object({
  /** Catalog checked for updates; relative URLs resolve against the app. */
  catalogUrl: z.string().check(z.maxLength(500)),
  /** Origins besides the app's own that releases may be fetched from. */
  allowedOrigins: z._default(z.array(z.url()), []),
});
export type RegistryConfig = z.infer<typeof RegistryConfigSchema>;

/** The built-in models' catalog, relative to the app: installed on first start. */
export const BUILTIN_CATALOG = 'models/catalog.json';

/**
 * What a start uses when the saved registry-config.json no longer parses (an app update with a
 * stricter schema) and the network gave no usable one: the built-in catalog and no origin but
 * the app's own, the narrowest configuration there is. Installed models need none to answer.
 */
export const FALLBACK_CONFIG: RegistryConfig = { catalogUrl: BUILTIN_CATALOG, allowedOrigins: [] };

export function parseRegistryConfig(json: unknown): RegistryConfig {
  return parseSchema(RegistryConfigSchema, json, 'registry-config.json');
}
