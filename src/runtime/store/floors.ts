import { DowngradeError, SignatureError } from '../errors.ts';
import { MAX_CATALOG_IDS } from '../schema-limits.ts';

/**
 * Rollback protection, TUF style. Per model: a release must be strictly newer than the last one
 * activated, except the identical manifest (a re-install). Each floor remembers which key set it,
 * so when a deployment revokes a key (or narrows its scope) the floor that key's releases set no
 * longer blocks the rightful publisher: an abused key cannot freeze a model forever. Per catalog
 * URL, the same for catalogs (catalogStampAfter); for the deployment's trust store, the
 * same by its version (assertTrustStoreNewer).
 */

/** The highest sequence a key's releases reached for one model, and that manifest's sha256. */
export interface Floor {
  /** Absent for floors recorded before keys were tracked: those always count. */
  keyId?: string;
  sequence: number;
  manifest?: string;
}

export interface SequenceRecord {
  id: string;
  /** What stores written before per-key floors recorded: the highest sequence, signer unknown. */
  highest?: number;
  floors?: Floor[];
}

/** Whether a key is still trusted for a model id (the trust store's current scopes). */
export type KeyPolicy = (keyId: string, id: string) => boolean;

/** Every floor counts unless a policy says otherwise: the strict default. */
export const ALL_KEYS: KeyPolicy = () => true;

function floorsOf(record: SequenceRecord | undefined): Floor[] {
  if (!record) return [];
  return record.floors ?? (record.highest !== undefined ? [{ sequence: record.highest }] : []);
}

/** The floors still in force: set by a key the policy trusts for this id, or by an unknown key. */
function activeFloors(record: SequenceRecord | undefined, policy: KeyPolicy): Floor[] {
  return floorsOf(record).filter((f) => f.keyId === undefined || policy(f.keyId, record!.id));
}

/** The sequence a newer release must exceed, or undefined when nothing counts yet. */
export function effectiveFloor(record: SequenceRecord | undefined, policy: KeyPolicy): number | undefined {
  const floors = activeFloors(record, policy);
  return floors.length ? Math.max(...floors.map((f) => f.sequence)) : undefined;
}

export interface ReleaseStamp {
  id: string;
  version: string;
  sequence: number;
  /** sha256 of the exact manifest bytes; identical bytes may be installed again. */
  manifest?: string;
}

/** Throws DowngradeError when `release` is older than a floor in force, or equal to one without being identical. */
export function assertNewer(record: SequenceRecord | undefined, release: ReleaseStamp, policy: KeyPolicy): void {
  const floors = activeFloors(record, policy);
  const highest = floors.length ? Math.max(...floors.map((f) => f.sequence)) : undefined;
  const details = { id: release.id, sequence: release.sequence, highest: highest ?? null };
  if (highest !== undefined && release.sequence < highest) {
    throw new DowngradeError(`Release ${release.version} of ${release.id} is older than one already installed; it was refused as a possible downgrade or replay.`, details);
  }
  const same = floors.filter((f) => f.sequence === release.sequence && f.manifest !== undefined);
  if (same.some((f) => f.manifest !== release.manifest)) {
    throw new DowngradeError(`Release ${release.version} of ${release.id} reuses the sequence number of an installed release with different contents; a new release needs a higher sequence.`, details);
  }
}

/**
 * The record after `release` was activated: the floor of each key that vouched for it rises
 * (an unknown signer's when none is known), so a rotation's new key inherits the old one's floor.
 */
export function raiseFloor(record: SequenceRecord | undefined, id: string, release: { keyIds: readonly string[]; sequence: number; manifest?: string }): SequenceRecord {
  const signers: (string | undefined)[] = release.keyIds.length ? [...release.keyIds] : [undefined];
  const others = floorsOf(record).filter((f) => !signers.includes(f.keyId));
  const raised = signers.map((keyId): Floor => {
    const own = floorsOf(record).find((f) => f.keyId === keyId);
    return own && own.sequence > release.sequence ? own : {
      ...(keyId !== undefined ? { keyId } : {}),
      sequence: release.sequence,
      ...(release.manifest !== undefined ? { manifest: release.manifest } : {}),
    };
  });
  return { id, floors: [...others, ...raised] };
}

/** What the device remembers of the last catalog it accepted from one URL. */
export interface CatalogStamp {
  url: string;
  version: number;
  /** sha256 of the exact catalog bytes: an equal version must be the identical catalog. */
  sha256: string;
  /**
   * The trusted keys that signed it (absent in stamps from before they were recorded). A URL's
   * catalog belongs to whoever signed the first one accepted from it, as long as a key of theirs
   * stays trusted for what the URL lists: the publisher the device follows there.
   */
  keyIds?: string[];
  /**
   * Every model id the catalogs accepted from this URL, from this publisher, have listed (absent
   * in stamps from before they were recorded; the latest MAX_CATALOG_IDS). A key stays the URL's publisher only while its
   * scope still covers them all: an empty catalog, a freeze, must not keep a key the deployment
   * narrowed away from those models in charge of them.
   */
  ids?: string[];
}

/** Whether `keyId` is in the trust store and its scope covers every one of `ids`. */
export type TrustedFor = (keyId: string, ids: readonly string[]) => boolean;

/**
 * The stamp a device keeps for `next.url` once it accepts the catalog `next` (which lists
 * `listed`), after it accepted `last` from there; or the refusal. Refused: one signed by
 * another publisher while a key that signed `last` is still trusted for what the URL listed
 * (SignatureError: a mirror serving another publisher's catalog, or a narrow key signing an
 * empty one, would otherwise hide this URL's updates), or an older one (DowngradeError: a
 * replay or a freeze). Once no key that signed `last` is trusted for what the URL listed any
 * more (the deployment revoked, narrowed or rotated it out), nothing of it binds: whatever that
 * key signed, at whatever version, cannot lock out the rightful publisher, whose ids start afresh.
 */
export function catalogStampAfter(last: CatalogStamp | undefined, next: CatalogStamp & { keyIds: string[] }, listed: readonly string[], trusted: TrustedFor): CatalogStamp {
  const fresh = { ...next, ids: [...new Set(listed)].slice(0, MAX_CATALOG_IDS).sort() };
  if (!last) return fresh;
  const ids = last.ids ?? [];
  if (last.keyIds) {
    if (!last.keyIds.some((k) => trusted(k, ids))) return fresh;
    if (!last.keyIds.some((k) => next.keyIds.includes(k))) {
      throw new SignatureError(`The model catalog at ${next.url} is signed by key ${next.keyIds[0] ?? ''}, not by the publisher whose catalogs this device follows there; it was refused.`, { url: next.url, keyId: next.keyIds[0] ?? '' });
    }
  }
  if (next.version < last.version || (next.version === last.version && next.sha256 !== last.sha256)) {
    throw new DowngradeError(`The model catalog is older than one this device already saw (version ${next.version}, last ${last.version}); it was refused as a replay.`, { version: next.version, last: last.version });
  }
  // This catalog's ids first, then those listed before, up to one full catalog's worth: a
  // publisher making up ids at every check must not grow the record without end.
  return { ...next, ids: [...new Set([...listed, ...ids])].slice(0, MAX_CATALOG_IDS).sort() };
}

/** What a device remembers of the last trust store it accepted (trustStoreStamp, trust.ts). */
export interface TrustStoreStamp {
  /** 0 for an unversioned file. */
  version: number;
  /** The file's JSON, serialised: an equal version must be the identical file. */
  content: string;
}

/**
 * Refuses a served trust store that a device which accepted `last` must not take, as TUF refuses
 * an older root: an older version (a stale copy, from a cache or an attacker, could list a key
 * the deployment has since revoked) or the same version with other contents (a replay or a fork:
 * a changed trust store needs a higher version). Unversioned files (version 0) keep the rule
 * they had before versions existed, the newest served wins, so a deployment that never numbered
 * its trust store can still revoke a key by editing it.
 */
export function assertTrustStoreNewer(last: TrustStoreStamp | undefined, next: TrustStoreStamp): void {
  if (!last) return;
  const details = { version: next.version, last: last.version };
  if (next.version < last.version) {
    throw new DowngradeError(`The trust store is older than one this device already accepted (version ${next.version}, last ${last.version}); it was refused as a replay, and the last one stays in use.`, details);
  }
  if (next.version === last.version && next.version !== 0 && next.content !== last.content) {
    throw new DowngradeError(`The trust store reuses version ${next.version} with other contents than the one this device accepted; it was refused (a changed trust store needs a higher version), and the last one stays in use.`, details);
  }
}
