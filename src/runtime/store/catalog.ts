import { z } from 'zod';
import { NetworkError, ValidationError } from '../errors.ts';
import { describeSchemaError, MODEL_ID, MODEL_ID_RULE } from '../model-config.ts';

/**
 * A release catalog (`lantern-catalog/1`) lists what a publisher offers. It is not signed:
 * it only says where to look, and every release it points at is verified on its own.
 */
export const CATALOG_FORMAT = 'lantern-catalog/1';

export const ReleaseEntrySchema = z.object({
  id: z.string().max(100).regex(MODEL_ID, MODEL_ID_RULE),
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

/**
 * Which origins the registry may fetch from: the app's own plus those the deployment lists.
 * Checked before every request so a catalog cannot point the app at an arbitrary host.
 */
export class OriginPolicy {
  private readonly allowed: Set<string>;
  constructor(readonly selfOrigin: string, extra: readonly string[] = []) {
    this.allowed = new Set([selfOrigin, ...extra.map((o) => new URL(o).origin)]);
  }

  check(url: string): string {
    const parsed = new URL(url);
    if (!this.allowed.has(parsed.origin)) {
      throw new NetworkError('This address is not an allowed model source; add its origin to the registry configuration.', { origin: parsed.origin });
    }
    return parsed.href;
  }
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

export async function fetchCatalog(url: string, policy: OriginPolicy, fetcher: typeof fetch): Promise<Release[]> {
  const href = policy.check(url);
  let response: Response;
  try {
    response = await fetcher(href, { cache: 'no-cache' });
  } catch {
    throw new NetworkError('The model catalog could not be fetched: the device may be offline.');
  }
  if (!response.ok) throw new NetworkError(`The model catalog could not be fetched (HTTP ${response.status}).`, { status: response.status });
  let json: unknown;
  try {
    json = await response.json();
  } catch {
    throw new ValidationError('The model catalog is not valid JSON.');
  }
  return parseCatalog(json, href);
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
