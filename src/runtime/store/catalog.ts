import { z } from 'zod';
import { ValidationError } from '../errors.ts';
import { describeSchemaError } from '../model-config.ts';
import { DOCUMENT_LIMITS, fetchDocument, parseJsonDocument, type NetContext } from './net.ts';

/**
 * A release catalog (`lantern-catalog/1`) lists what a publisher offers. It is not signed:
 * it only says where to look, and every release it points at is verified on its own.
 */
export const CATALOG_FORMAT = 'lantern-catalog/1';

export const ReleaseEntrySchema = z.object({
  id: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/),
  version: z.string().max(64),
  sequence: z.number().int().nonnegative(),
  title: z.string().max(200).optional(),
  /** Relative to the catalog URL. */
  manifest: z.string().max(500),
  signature: z.string().max(500),
  /** Total bytes of the release's files. */
  size: z.number().int().nonnegative(),
});
export const ReleaseCatalogSchema = z.object({ format: z.literal(CATALOG_FORMAT), releases: z.array(ReleaseEntrySchema) });
export type ReleaseEntry = z.infer<typeof ReleaseEntrySchema>;
export type ReleaseCatalog = z.infer<typeof ReleaseCatalogSchema>;

/** A release with absolute URLs, ready to install. */
export interface Release extends ReleaseEntry {
  manifestUrl: string;
  signatureUrl: string;
}

export function parseCatalog(json: unknown, catalogUrl: string): Release[] {
  const parsed = ReleaseCatalogSchema.safeParse(json);
  if (!parsed.success) throw new ValidationError(describeSchemaError('The model catalog', parsed.error));
  return parsed.data.releases.map((r) => ({
    ...r,
    manifestUrl: new URL(r.manifest, catalogUrl).href,
    signatureUrl: new URL(r.signature, catalogUrl).href,
  }));
}

export async function fetchCatalog(url: string, net: NetContext): Promise<Release[]> {
  const what = 'the model catalog';
  const bytes = await fetchDocument(net, { url, what, cache: 'no-cache', limit: DOCUMENT_LIMITS.catalog });
  return parseCatalog(parseJsonDocument(bytes, what), net.policy.check(url));
}

/** The newest release per model (highest sequence). */
export function latestReleases(releases: readonly Release[]): Map<string, Release> {
  const latest = new Map<string, Release>();
  for (const r of releases) {
    const seen = latest.get(r.id);
    if (!seen || r.sequence > seen.sequence) latest.set(r.id, r);
  }
  return latest;
}
