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

export function parseRegistryConfig(json: unknown): RegistryConfig {
  return parseSchema(RegistryConfigSchema, json, 'registry-config.json');
}
