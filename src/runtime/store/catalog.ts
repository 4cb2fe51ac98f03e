import { z } from 'zod/mini';
import { ValidationError } from '../errors.ts';
import { ModelIdSchema } from '../model-id.ts';
import { parseSchema } from '../schema.ts';
import { MAX_CATALOG_RELEASES, MAX_TITLE_LENGTH, MAX_WITHDRAWAL_REASON } from '../schema-limits.ts';
import { validForAtMost } from './expiry.ts';
import { parseJsonDocument } from './net.ts';

/**
 * A release catalog (`lantern-catalog/2`) lists what a publisher offers. It is signed like a
 * manifest (`catalog.sig.json` next to it, by a key whose scope covers every listed id),
 * versioned (the device refuses one older than the last it saw from that URL: replay, freeze)
 * and expiring (a mirror cannot hide updates forever by serving an old catalog). Every release
 * it points at is still verified on its own; the catalog's signed sizes are what the user is
 * asked to accept, and an install refuses a release that disagrees with its entry.
 */
export const CATALOG_FORMAT = 'lantern-catalog/2';

/** Whether `value` resolves against a URL: a broken one is refused with the catalog, not when used. */
function resolves(value: string): boolean {
  try {
    return new URL(value, 'https://catalog.invalid/').href.length > 0;
  } catch {
    return false;
  }
}
const UrlReference = z.string().check(z.maxLength(500), z.refine(resolves, 'expected a URL or a path'));

export const ReleaseEntrySchema = z.object({
  id: ModelIdSchema,
  version: z.string().check(z.maxLength(64)),
  sequence: z.int().check(z.nonnegative()),
  title: z.optional(z.string().check(z.maxLength(MAX_TITLE_LENGTH))),
  /** Relative to the catalog URL. */
  manifest: UrlReference,
  signature: UrlReference,
  /** Total bytes of the release's files. */
  size: z.int().check(z.nonnegative()),
  /**
   * Staged rollout: the fraction of devices (0–1) that install this release automatically, by
   * each device's stable local bucket (release/rollout.ts). Absent: no device installs it
   * automatically; users update from the Models screen.
   */
  rollout: z.optional(z.number().check(z.gte(0), z.lte(1))),
  /**
   * The release's signed manifest asks to be installed in shadow (`model:pack --shadow-runs`):
   * said here so that the Models screen can say so before anything is fetched. The manifest
   * decides; an install refuses an entry that promises shadow for a manifest that does not ask it.
   */
  shadow: z.optional(z.literal(true)),
  /**
   * The publisher took this release back, saying why (shown to users): no device installs it,
   * and one that has it stops using it where another version can answer (ModelStore.withdraw).
   */
  withdrawn: z.optional(z.string().check(z.minLength(1), z.maxLength(MAX_WITHDRAWAL_REASON))),
});
export const ReleaseCatalogSchema = z.object({
  format: z.literal(CATALOG_FORMAT),
  /** Monotonic per catalog URL (the CLI uses seconds since the epoch, or the last one + 1). */
  version: z.int().check(z.nonnegative()),
  createdAt: z.iso.datetime(),
  expiresAt: z.iso.datetime(),
  releases: z.array(ReleaseEntrySchema).check(z.maxLength(MAX_CATALOG_RELEASES)),
});
export type ReleaseEntry = z.infer<typeof ReleaseEntrySchema>;
export type ReleaseCatalog = z.infer<typeof ReleaseCatalogSchema>;

/** A release with absolute URLs, ready to install. */
export interface Release extends ReleaseEntry {
  manifestUrl: string;
  signatureUrl: string;
}

/** Where a catalog's detached signature lives: `catalog.json` → `catalog.sig.json`. */
export const signaturePathFor = (path: string): string => path.replace(/(?:\.json)?$/, '.sig.json');

export function catalogSignatureUrl(catalogUrl: string): string {
  const url = new URL(catalogUrl);
  url.pathname = signaturePathFor(url.pathname);
  url.search = '';
  return url.href;
}

/** The exact bytes a publisher signs and serves for a catalog. */
export const catalogBytes = (catalog: ReleaseCatalog): Uint8Array<ArrayBuffer> => new TextEncoder().encode(`${JSON.stringify(catalog, null, 1)}\n`);

export function parseCatalog(bytes: Uint8Array): ReleaseCatalog {
  return parseSchema(ReleaseCatalogSchema, parseJsonDocument(bytes, 'the model catalog'), 'The model catalog');
}

/**
 * The longest a catalog may vouch for "this is the newest" after its `createdAt` (a year, a leap
 * day included): a mirror can replay it, hiding every later release, until it expires.
 */
export const MAX_CATALOG_VALIDITY_DAYS = 366;

/**
 * Refuses an expired catalog: updates pause (installed models keep working) until a fresh one is
 * signed. Refuses one signed to last longer than MAX_CATALOG_VALIDITY_DAYS too: its expiry would
 * bound nothing.
 */
export function assertCatalogFresh(catalog: ReleaseCatalog, now = Date.now()): void {
  if (!validForAtMost(catalog.createdAt, catalog.expiresAt, MAX_CATALOG_VALIDITY_DAYS)) {
    throw new ValidationError(`The model catalog is signed to stay valid until ${catalog.expiresAt.slice(0, 10)}, more than ${MAX_CATALOG_VALIDITY_DAYS} days after it was made; it was refused (ask the publisher to re-sign it with an earlier --expires).`);
  }
  if (Date.parse(catalog.expiresAt) <= now) {
    throw new ValidationError(`The model catalog expired on ${catalog.expiresAt.slice(0, 10)}; updates are paused until the publisher signs a fresh one. Installed models keep working.`, { expiresAt: catalog.expiresAt });
  }
}

/** The catalog's releases with absolute URLs. */
export const releasesOf = (catalog: ReleaseCatalog, catalogUrl: string): Release[] => catalog.releases.map((r) => ({
  ...r,
  manifestUrl: new URL(r.manifest, catalogUrl).href,
  signatureUrl: new URL(r.signature, catalogUrl).href,
}));

/** The newest release per model (highest sequence). */
export function latestReleases(releases: readonly Release[]): Map<string, Release> {
  const latest = new Map<string, Release>();
  for (const r of releases) {
    const seen = latest.get(r.id);
    if (!seen || r.sequence > seen.sequence) latest.set(r.id, r);
  }
  return latest;
}
