import { openDB, type DBSchema, type IDBPDatabase, type IDBPTransaction, type StoreNames } from 'idb';
import { DowngradeError, LanternError, QuotaError, StorageError, ValidationError } from '../errors.ts';
import { sha256Hex } from './bytes.ts';
import { ALL_KEYS, assertNewer, catalogStampAfter, effectiveFloor, raiseFloor, type CatalogStamp, type KeyPolicy, type ReleaseStamp, type SequenceRecord, type TrustedFor } from './floors.ts';
import type { SignatureFile } from './trust.ts';
import { MAX_UNHELD_WITHDRAWALS_PER_CATALOG, MAX_WITHDRAWALS_PER_MODEL } from '../schema-limits.ts';
import { REVOKED_REASON } from './reasons.ts';
import { chunkRange, parseManifest, totalSize, versionKey, type Manifest } from './manifest.ts';

/**
 * The model registry's IndexedDB: content-addressed chunks, verified manifests, installed
 * versions, one active pointer per model and the highest sequence ever activated per model.
 * Every state change that must be all-or-nothing (activation, rollback, quarantine, removal,
 * garbage collection) happens in one readwrite transaction, so a crash or a full disk leaves
 * either the old state or the new one. Only bytes that were already verified are written here.
 */

/**
 * `rejected`: failed its validation gate, or was rolled back automatically; never activated by
 * itself. `revoked`: the trust store no longer vouches for it (REVOKED_REASON); it never runs
 * and is never a rollback target, until a trust store vouches for it again. `withdrawn`: its
 * publisher took it back (`withdraw`); it never runs again on this device.
 */
export type VersionStatus = 'downloading' | 'ready' | 'quarantined' | 'rejected' | 'revoked' | 'withdrawn';

export interface VersionRecord {
  key: string;
  id: string;
  version: string;
  sequence: number;
  status: VersionStatus;
  sizeBytes: number;
  addedAt: number;
  /** Why it was quarantined, rejected or revoked (a fixed message, never content). */
  reason?: string;
  /**
   * A revoked version's status before it was revoked, which a trust store vouching for it again
   * restores: `downloading` (not complete, or not yet through its validation gate) never comes
   * back `ready`, which would let it be activated without its gate.
   */
  beforeRevocation?: 'ready' | 'downloading';
  /**
   * Its publisher's reason for withdrawing it (from a signed catalog). Set also on an active
   * version that stays `ready` because no other version can answer in its place.
   */
  withdrawn?: string;
  /** The trusted keys that vouched for it when it was installed (every in-scope signer). */
  keyIds?: string[];
  /** What stores written before keyIds recorded: the first key that vouched for it. */
  keyId?: string;
}

/** The keys that vouched for a version, in a record of any age. */
function vouchedBy(version: VersionRecord): string[] {
  return version.keyIds ?? (version.keyId !== undefined ? [version.keyId] : []);
}

export interface ManifestRecord {
  key: string;
  /** The exact signed bytes. */
  bytes: ArrayBuffer;
  signatures: SignatureFile;
  /** sha256 of `bytes`: an equal sequence is accepted only for the identical manifest. */
  sha256?: string;
  /** Every chunk hash the version needs, for GC and completeness checks without re-parsing. */
  chunks: string[];
  /** Where it was downloaded from (absent for sideloaded bundles): resume and samples use it. */
  sourceUrl?: string;
  /** What its install asked for, if it chose (else the signed manifest decides): a resume does the same. */
  mode?: InstallMode;
}

/** `shadow`: evaluate next to the active version on real requests before promotion (release/shadow.ts). */
export type InstallMode = 'activate' | 'shadow';

export interface PointerRecord {
  id: string;
  active: string;
  /** The last good version before `active`: kept for rollback and quarantine fallback. */
  previous?: string;
  /** A candidate installed in shadow: runs next to `active` on real requests, never answers. */
  shadow?: string;
}

interface StoreSchema extends DBSchema {
  chunks: { key: string; value: { sha256: string; bytes: ArrayBuffer } };
  manifests: { key: string; value: ManifestRecord };
  versions: { key: string; value: VersionRecord; indexes: { byModel: string } };
  pointers: { key: string; value: PointerRecord };
  sequences: { key: string; value: SequenceRecord };
  /** The last good copy of each deployment file (trust store, registry config), for offline starts. */
  deployment: { key: string; value: { name: string; json: unknown } };
  /** The newest signed catalog seen per URL: an older one is a replay or a freeze. */
  catalogs: { key: string; value: CatalogStamp };
  /**
   * Every withdrawal a catalog this device accepted made, installed here or not, kept for good
   * (neither garbage collection nor removing the model deletes them): a withdrawal is final on a
   * device, whatever catalog, mirror or bundle offers the release later.
   */
  withdrawals: { key: string; value: KeptWithdrawal };
}

/** What became of a version taken out of service (the trust store no longer vouches for it, or its publisher withdrew it). */
export interface HandOver {
  id: string;
  version: string;
  /** The version answering instead, when the revoked one was active. */
  fallback?: string;
  wasActive: boolean;
  /** Withdrawn, but still active: no other version of the model can answer in its place. */
  kept?: boolean;
}

/** A publisher's withdrawal of one release, as its signed catalog entry says. */
export interface Withdrawal {
  key: string;
  sequence: number;
  reason: string;
}

/** The accepted catalog a withdrawal came from: its URL and its version there. */
export interface CatalogSource {
  url: string;
  version: number;
}

/**
 * A withdrawal as the device keeps it. `from`: set while the device has never had the model,
 * whose withdrawals are capped per catalog URL instead of per model (keepWithdrawals).
 */
interface KeptWithdrawal extends Withdrawal {
  from?: CatalogSource;
}

/**
 * Where a withdrawal is kept: the release's key and sequence (a withdrawal names a version under
 * its sequence, and one naming another sequence withdraws nothing, so it must not replace this one).
 */
const withdrawalKey = (release: { key: string; sequence: number }): string => `${release.key}#${release.sequence}`;
/** The model id of a version key (`id@version`; ids hold no "@", a version might). */
const modelOf = (key: string): string => key.slice(0, key.indexOf('@'));

type Name = StoreNames<StoreSchema>;
type WriteTx<S extends Name[]> = IDBPTransaction<StoreSchema, S, 'readwrite'>;
const ALL: Name[] = ['chunks', 'manifests', 'versions', 'pointers', 'sequences'];

/**
 * After `gone` were taken out of service (revoked, withdrawn): none stays a rollback target or a
 * shadow candidate, and an active one hands over to the previous version, or else the newest
 * ready one, or else the model has no active version. What became of each.
 */
async function handOver(tx: WriteTx<Name[]>, gone: readonly VersionRecord[]): Promise<HandOver[]> {
  const keys = new Set(gone.map((v) => v.key));
  const pointers = tx.objectStore('pointers');
  const result: HandOver[] = [];
  for (const v of gone) {
    let pointer = await pointers.get(v.id);
    const wasActive = pointer?.active === v.key;
    if (pointer?.previous && keys.has(pointer.previous)) pointer = without(pointer, 'previous');
    if (pointer?.shadow && keys.has(pointer.shadow)) pointer = without(pointer, 'shadow');
    if (pointer) await pointers.put(pointer);
    if (!pointer || !wasActive) {
      result.push({ id: v.id, version: v.version, wasActive });
      continue;
    }
    const fallback = await fallbackFor(tx, pointer, v.key);
    if (fallback) await pointers.put({ ...without(pointer, 'previous'), active: fallback.key });
    else await pointers.delete(v.id);
    result.push({ id: v.id, version: v.version, wasActive, ...(fallback ? { fallback: fallback.version } : {}) });
  }
  return result;
}

/** The version to answer instead of `leaving`: the previous one if ready, else the newest ready one (never the shadow candidate, which a hand-over does not promote). */
async function fallbackFor(tx: WriteTx<Name[]>, pointer: PointerRecord, leaving: string): Promise<VersionRecord | undefined> {
  const versions = tx.objectStore('versions');
  const previous = pointer.previous && pointer.previous !== leaving ? await versions.get(pointer.previous) : undefined;
  if (previous?.status === 'ready') return previous;
  const candidates = (await versions.index('byModel').getAll(pointer.id))
    .filter((c) => c.status === 'ready' && c.key !== leaving && c.key !== pointer.shadow).sort((a, b) => b.sequence - a.sequence);
  return candidates[0];
}

/** Why a withdrawn version is not installed, activated or tried in shadow again. */
const withdrawnError = (v: { id: string; version: string }, reason: string): ValidationError =>
  new ValidationError(`Version ${v.version} of ${v.id} was withdrawn by its publisher ("${reason}"); it is not installed again on this device.`, { id: v.id, version: v.version });

const isQuotaError = (error: unknown): boolean =>
  error instanceof DOMException && (error.name === 'QuotaExceededError' || error.code === 22);

function storageError(error: unknown): LanternError {
  if (error instanceof LanternError) return error;
  if (isQuotaError(error)) return new QuotaError('The device is out of storage space; the download was stopped and installed models were left untouched.');
  return new StorageError('The model store could not be updated.', {}, { cause: error });
}

const chunkList = (m: Manifest): string[] => [...new Set(m.files.flatMap((f) => f.chunks))];

export class ModelStore {
  /** Set when another tab asked to upgrade the database and this connection stepped aside. */
  private closedByOtherTab = false;
  /** Which signing keys' sequence floors still count (set by the registry from its trust store). */
  private keyPolicy: KeyPolicy = ALL_KEYS;

  private constructor(private readonly handle: IDBPDatabase<StoreSchema>) {}

  /** The database's name: one store, whichever tab or window of the app opened it. */
  get name(): string {
    return this.handle.name;
  }

  /** Every operation goes through here, so a connection closed for another tab fails clearly. */
  private get db(): IDBPDatabase<StoreSchema> {
    if (this.closedByOtherTab) throw new StorageError('The model store is being upgraded by another Lantern tab; close the other tabs and reload this one. Installed models are unchanged.');
    return this.handle;
  }

  static async open(name = 'lantern-models'): Promise<ModelStore> {
    let store: ModelStore | undefined;
    try {
      const db = await openDB<StoreSchema>(name, 3, {
        async upgrade(database, oldVersion, _newVersion, tx) {
          if (oldVersion < 1) {
            database.createObjectStore('chunks', { keyPath: 'sha256' });
            database.createObjectStore('manifests', { keyPath: 'key' });
            database.createObjectStore('versions', { keyPath: 'key' }).createIndex('byModel', 'id');
            database.createObjectStore('pointers', { keyPath: 'id' });
            database.createObjectStore('sequences', { keyPath: 'id' });
          }
          if (oldVersion < 2) {
            database.createObjectStore('deployment', { keyPath: 'name' });
            database.createObjectStore('catalogs', { keyPath: 'url' });
          }
          if (oldVersion < 3) {
            const withdrawals = database.createObjectStore('withdrawals', { keyPath: 'key' });
            // Withdrawals until now lived only in the version records garbage collection deletes.
            for (const v of await tx.objectStore('versions').getAll()) {
              if (v.withdrawn !== undefined) await withdrawals.put({ key: withdrawalKey(v), sequence: v.sequence, reason: v.withdrawn });
            }
          }
        },
        blocking() {
          // A newer tab wants to upgrade: step aside rather than block it forever.
          db.close();
          if (store) store.closedByOtherTab = true;
        },
      });
      store = new ModelStore(db);
      return store;
    } catch (error) {
      throw new StorageError('The model store could not be opened.', {}, { cause: error });
    }
  }

  close(): void {
    this.handle.close();
  }

  /** Floors set by keys the policy no longer trusts for a model stop blocking that model. */
  useKeyPolicy(policy: KeyPolicy): void {
    this.keyPolicy = policy;
  }

  /** Runs `fn` in one readwrite transaction; throwing inside aborts every write it made. */
  private async write<S extends Name[], T>(stores: S, fn: (tx: WriteTx<S>) => Promise<T>): Promise<T> {
    let tx: WriteTx<S>;
    try {
      tx = this.db.transaction(stores, 'readwrite');
    } catch (error) {
      throw storageError(error);
    }
    try {
      const result = await fn(tx);
      await tx.done;
      return result;
    } catch (error) {
      try {
        tx.abort();
      } catch {
        // Already finished or aborted.
      }
      await tx.done.catch(() => undefined);
      throw storageError(error);
    }
  }

  // --- chunks -------------------------------------------------------------------------------

  /** Stores one chunk whose hash the caller has verified. */
  async putChunk(sha256: string, bytes: ArrayBuffer): Promise<void> {
    await this.write(['chunks'], (tx) => tx.objectStore('chunks').put({ sha256, bytes }));
  }

  async getChunk(sha256: string): Promise<ArrayBuffer | undefined> {
    return (await this.db.get('chunks', sha256))?.bytes;
  }

  async hasChunk(sha256: string): Promise<boolean> {
    return (await this.db.getKey('chunks', sha256)) !== undefined;
  }

  // --- reads --------------------------------------------------------------------------------

  // async: a store closed by another tab rejects instead of throwing synchronously.
  async versions(id?: string): Promise<VersionRecord[]> {
    return id ? this.db.getAllFromIndex('versions', 'byModel', id) : this.db.getAll('versions');
  }

  async version(key: string): Promise<VersionRecord | undefined> {
    return this.db.get('versions', key);
  }

  async manifest(key: string): Promise<ManifestRecord | undefined> {
    return this.db.get('manifests', key);
  }

  async pointers(): Promise<PointerRecord[]> {
    return this.db.getAll('pointers');
  }

  async pointer(id: string): Promise<PointerRecord | undefined> {
    return this.db.get('pointers', id);
  }

  /** The sequence a release must exceed (floors of keys still trusted for `id`). */
  async highestSequence(id: string): Promise<number | undefined> {
    return effectiveFloor(await this.db.get('sequences', id), this.keyPolicy);
  }

  // --- state changes ------------------------------------------------------------------------

  /**
   * Throws DowngradeError unless `release` is newer than every floor in force for its model (or
   * is the identical manifest at the same sequence).
   */
  async assertNotDowngrade(release: ReleaseStamp): Promise<void> {
    assertNewer(await this.db.get('sequences', release.id), release, this.keyPolicy);
  }

  /**
   * Records a verified manifest as a version being downloaded. Refuses (DowngradeError) what
   * `assertNotDowngrade` refuses, and a different manifest under an installed version's number.
   * Returns the version's record (which may already be ready, e.g. a retained version).
   */
  async beginInstall(manifest: Manifest, bytes: Uint8Array, signatures: SignatureFile, origin: { keyIds: string[]; sourceUrl?: string; mode?: InstallMode }): Promise<VersionRecord> {
    const key = versionKey(manifest);
    const sha256 = await sha256Hex(bytes);
    return this.write(['manifests', 'versions', 'sequences', 'withdrawals'], async (tx) => {
      assertNewer(await tx.objectStore('sequences').get(manifest.id), { ...manifest, manifest: sha256 }, this.keyPolicy);
      const existing = await tx.objectStore('versions').get(key);
      const stored = existing && await tx.objectStore('manifests').get(key);
      // Reinstalling the one kept answering after its withdrawal (to repair it) is allowed: it still answers.
      const withdrawal = await tx.objectStore('withdrawals').get(withdrawalKey({ key, sequence: manifest.sequence }));
      if (existing?.status === 'withdrawn' || (withdrawal && existing?.withdrawn === undefined)) throw withdrawnError(manifest, withdrawal?.reason ?? existing?.withdrawn ?? '');
      if (existing?.status === 'ready' && stored?.sha256 === sha256) return existing;
      if (existing && existing.status !== 'downloading' && stored?.sha256 !== sha256) {
        throw new DowngradeError(`Release ${manifest.version} of ${manifest.id} is already installed with different contents; a new release needs a new version.`, { id: manifest.id, version: manifest.version });
      }
      const record: VersionRecord = {
        key, id: manifest.id, version: manifest.version, sequence: manifest.sequence,
        status: 'downloading', sizeBytes: totalSize(manifest), addedAt: Date.now(), keyIds: origin.keyIds,
      };
      await tx.objectStore('manifests').put({
        key, bytes: bytes.slice().buffer as ArrayBuffer, signatures, sha256, chunks: chunkList(manifest),
        ...(origin.sourceUrl ? { sourceUrl: origin.sourceUrl } : {}),
        ...(origin.mode ? { mode: origin.mode } : {}),
      });
      await tx.objectStore('versions').put(record);
      return record;
    });
  }

  /**
   * A version that may be activated or evaluated in shadow: installed, not refused or revoked,
   * every chunk stored, and not below a sequence floor in force. Returns its stamp for the floor.
   */
  private async assertActivatable(tx: WriteTx<Name[]>, key: string): Promise<{ version: VersionRecord; stamp: ReleaseStamp & { keyIds: string[] } }> {
    const version = await tx.objectStore('versions').get(key);
    const manifest = await tx.objectStore('manifests').get(key);
    // Withdrawn while it downloaded, or asked for again: the publisher's reason, not "not installed".
    if (version?.status === 'withdrawn') throw withdrawnError(version, version.withdrawn ?? '');
    if (!version || !manifest || (version.status !== 'ready' && version.status !== 'downloading')) throw new StorageError('That version is not installed.', { key });
    for (const sha of manifest.chunks) {
      if ((await tx.objectStore('chunks').getKey(sha)) === undefined) throw new StorageError('That version is not completely downloaded.', { key });
    }
    const stamp = { id: version.id, version: version.version, sequence: version.sequence, keyIds: vouchedBy(version), ...(manifest.sha256 ? { manifest: manifest.sha256 } : {}) };
    assertNewer(await tx.objectStore('sequences').get(version.id), stamp, this.keyPolicy);
    return { version, stamp };
  }

  /**
   * Makes a fully stored version the active one, in one transaction: re-checks that every chunk
   * is present and that the sequence is not a downgrade, moves the old active version to
   * `previous` (unless it was withdrawn), raises the highest sequence, then garbage-collects what
   * is no longer retained.
   */
  async activate(key: string): Promise<void> {
    await this.write(ALL, async (tx) => {
      const { version, stamp } = await this.assertActivatable(tx, key);
      const sequences = tx.objectStore('sequences');
      const old = await tx.objectStore('pointers').get(version.id);
      if (old?.active === key) return;
      await tx.objectStore('versions').put({ ...version, status: 'ready' });
      // A withdrawn version kept only because nothing else could answer (see withdraw) goes for
      // good once this one answers: it is never the previous version, so no rollback returns to it.
      const leaving = old ? await tx.objectStore('versions').get(old.active) : undefined;
      const leavingWithdrawn = leaving?.withdrawn !== undefined;
      if (leaving && leavingWithdrawn) await tx.objectStore('versions').put({ ...leaving, status: 'withdrawn' });
      // A candidate in shadow stays in shadow unless it is the one being activated (promotion) or
      // this activation raises the floor to its sequence or above: its promotion would then be a
      // downgrade, so its runs would only cost the device (it is collected below).
      const shadow = old?.shadow && old.shadow !== key ? await tx.objectStore('versions').get(old.shadow) : undefined;
      const keepShadow = shadow !== undefined && shadow.sequence > version.sequence;
      await tx.objectStore('pointers').put({ id: version.id, active: key, ...(old && !leavingWithdrawn ? { previous: old.active } : {}), ...(keepShadow ? { shadow: shadow.key } : {}) });
      await sequences.put(raiseFloor(await sequences.get(version.id), version.id, stamp));
      await collectGarbage(tx, this.keyPolicy);
    });
  }

  /**
   * Explicit local rollback to a retained, ready version. Deliberately skips the sequence
   * check (that is the one allowed way back) and leaves the highest sequence as it is.
   */
  async rollback(id: string, key: string): Promise<void> {
    await this.write(['versions', 'pointers'], async (tx) => {
      const target = await tx.objectStore('versions').get(key);
      const pointer = await tx.objectStore('pointers').get(id);
      if (!target || target.id !== id || target.status !== 'ready' || !pointer) throw new StorageError('That version is not available for rollback.', { key });
      if (pointer.active === key) return;
      await tx.objectStore('pointers').put({ ...pointer, active: key, previous: pointer.active });
    });
  }

  /**
   * Takes a version that failed re-verification out of service: marks it quarantined, deletes
   * the chunks that are missing or failed their own hash (`damagedChunks`, from readVerified) and,
   * if it was active, falls back to the previous version. Returns the new active key, if any.
   * A chunk is keyed by its own hash, so one that fails it is useless to every version listing it:
   * deleting it even when another version or model also lists it loses nothing, and is what lets
   * a reinstall (which skips stored chunks) fetch a good copy instead of failing on the bad one
   * until every other version using it has happened to be read. Chunks that pass their hash are
   * never deleted here.
   */
  async quarantine(key: string, reason: string, damagedChunks: readonly string[]): Promise<string | undefined> {
    return this.write(['chunks', 'manifests', 'versions', 'pointers'], async (tx) => {
      const version = await tx.objectStore('versions').get(key);
      if (!version) return undefined;
      await tx.objectStore('versions').put({ ...version, status: 'quarantined', reason });
      for (const sha of damagedChunks) await tx.objectStore('chunks').delete(sha);
      const pointers = tx.objectStore('pointers');
      const pointer = await pointers.get(version.id);
      if (!pointer) return undefined;
      if (pointer.shadow === key) {
        await pointers.put(without(pointer, 'shadow'));
        return pointer.active;
      }
      if (pointer.previous === key) {
        await pointers.put(without(pointer, 'previous'));
        return pointer.active;
      }
      if (pointer.active !== key) return pointer.active;
      const previous = pointer.previous ? await tx.objectStore('versions').get(pointer.previous) : undefined;
      if (previous?.status === 'ready') {
        await pointers.put({ ...without(pointer, 'previous'), active: previous.key });
        return previous.key;
      }
      await pointers.delete(pointer.id);
      return undefined;
    });
  }

  /** Deletes chunks that failed their own hash (see quarantine), so that a reinstall fetches them again. */
  async dropDamagedChunks(shas: readonly string[]): Promise<void> {
    await this.write(['chunks'], async (tx) => {
      for (const sha of shas) await tx.objectStore('chunks').delete(sha);
    });
  }

  /** Marks a candidate that failed its validation gate; the active version is not touched. */
  async reject(key: string, reason: string): Promise<void> {
    await this.write(['versions'], async (tx) => {
      const version = await tx.objectStore('versions').get(key);
      if (version) await tx.objectStore('versions').put({ ...version, status: 'rejected', reason });
    });
  }

  /**
   * Puts a fully stored candidate in shadow next to its model's active version, in one
   * transaction: same completeness and downgrade checks as an activation, but the active
   * version is untouched. A candidate already in shadow is replaced (and collected).
   */
  async enterShadow(key: string): Promise<void> {
    await this.write(ALL, async (tx) => {
      const { version } = await this.assertActivatable(tx, key);
      const pointer = await tx.objectStore('pointers').get(version.id);
      if (!pointer) throw new StorageError('A version can only be evaluated in shadow next to an active one.', { key });
      if (pointer.active === key) throw new StorageError('The active version cannot be put in shadow.', { key });
      await tx.objectStore('versions').put({ ...version, status: 'ready' });
      await tx.objectStore('pointers').put({ ...pointer, shadow: key });
      await collectGarbage(tx, this.keyPolicy);
    });
  }

  /** Ends a shadow evaluation without promotion: the candidate is marked rejected (with why) and later collected. */
  async rejectShadow(key: string, reason: string): Promise<void> {
    await this.write(['versions', 'pointers'], async (tx) => {
      const version = await tx.objectStore('versions').get(key);
      const pointer = version && await tx.objectStore('pointers').get(version.id);
      if (!version || pointer?.shadow !== key) throw new StorageError('That version is not in shadow.', { key });
      await tx.objectStore('pointers').put(without(pointer, 'shadow'));
      await tx.objectStore('versions').put({ ...version, status: 'rejected', reason });
    });
  }

  /**
   * Ends a shadow evaluation without a verdict, if `key` is still in shadow next to `active` (the
   * pair the caller judged): neither promoted nor rejected, the candidate stays a release that may
   * be offered again, and is collected like any version no longer kept. Returns whether it ended.
   */
  async endShadow(key: string, active: string): Promise<boolean> {
    return this.write(ALL, async (tx) => {
      const version = await tx.objectStore('versions').get(key);
      const pointer = version && await tx.objectStore('pointers').get(version.id);
      if (pointer?.shadow !== key || pointer.active !== active) return false;
      await tx.objectStore('pointers').put(without(pointer, 'shadow'));
      await collectGarbage(tx, this.keyPolicy);
      return true;
    });
  }

  /**
   * Automatic rollback, in one transaction: if `key` is still active and its previous version is
   * ready, the previous one becomes active and `key` is marked rejected. Returns the new active key.
   */
  async rollBackFrom(key: string, reason: string): Promise<string | undefined> {
    return this.write(['versions', 'pointers'], async (tx) => {
      const version = await tx.objectStore('versions').get(key);
      const pointer = version && await tx.objectStore('pointers').get(version.id);
      if (!version || pointer?.active !== key || !pointer.previous) return undefined;
      const previous = await tx.objectStore('versions').get(pointer.previous);
      if (previous?.status !== 'ready') return undefined;
      await tx.objectStore('pointers').put({ ...without(pointer, 'previous'), active: previous.key });
      await tx.objectStore('versions').put({ ...version, status: 'rejected', reason });
      return previous.key;
    });
  }

  /** Deletes a version that is not active (a retained or abandoned one). */
  async removeVersion(key: string): Promise<void> {
    await this.write(ALL, async (tx) => {
      const version = await tx.objectStore('versions').get(key);
      if (!version) return;
      const pointer = await tx.objectStore('pointers').get(version.id);
      if (pointer?.active === key) throw new StorageError('The active version cannot be deleted; activate or roll back to another one first.', { key });
      if (pointer?.previous === key) await tx.objectStore('pointers').put(without(pointer, 'previous'));
      if (pointer?.shadow === key) await tx.objectStore('pointers').put(without(pointer, 'shadow'));
      await tx.objectStore('versions').delete(key);
      await tx.objectStore('manifests').delete(key);
      await collectGarbage(tx, this.keyPolicy);
    });
  }

  /** Deletes a model entirely. Its highest sequence is kept: replay protection outlives it. */
  async removeModel(id: string): Promise<void> {
    await this.write(ALL, async (tx) => {
      for (const version of await tx.objectStore('versions').index('byModel').getAll(id)) {
        await tx.objectStore('versions').delete(version.key);
        await tx.objectStore('manifests').delete(version.key);
      }
      await tx.objectStore('pointers').delete(id);
      await collectGarbage(tx, this.keyPolicy);
    });
  }

  /**
   * Applies the current trust store's verdict on installed versions (key → still trusted for its
   * model), in one transaction: untrusted ready or downloading versions become `revoked`; a
   * revoked version trusted again comes back; a revoked active version hands over to the previous
   * version, or else the newest ready one, or else the model has no active version. Returns the
   * versions newly revoked.
   */
  async applyTrustVerdicts(trusted: ReadonlyMap<string, boolean>): Promise<HandOver[]> {
    return this.write(['chunks', 'manifests', 'versions', 'pointers'], async (tx) => {
      const versions = tx.objectStore('versions');
      const revoked: VersionRecord[] = [];
      const restored: VersionRecord[] = [];
      for (const v of await versions.getAll()) {
        const verdict = trusted.get(v.key);
        if (verdict === false && (v.status === 'ready' || v.status === 'downloading')) {
          await versions.put({ ...v, status: 'revoked', reason: REVOKED_REASON, beforeRevocation: v.status });
          revoked.push(v);
        } else if (verdict === true && v.status === 'revoked') {
          const chunks = (await tx.objectStore('manifests').get(v.key))?.chunks ?? [];
          let complete = true;
          for (const sha of chunks) if ((await tx.objectStore('chunks').getKey(sha)) === undefined) complete = false;
          const { reason: _, beforeRevocation = 'ready', ...rest } = v;
          const back: VersionRecord = { ...rest, status: complete && beforeRevocation === 'ready' ? 'ready' : 'downloading' };
          await versions.put(back);
          if (back.status === 'ready') restored.push(back);
        }
      }
      // A model whose every version was revoked lost its active version (handOver): the newest
      // one trusted again answers again, as it did, rather than the model staying unusable.
      const pointers = tx.objectStore('pointers');
      for (const v of restored.sort((x, y) => y.sequence - x.sequence)) {
        if (!(await pointers.get(v.id))) await pointers.put({ id: v.id, active: v.key });
      }
      return handOver(tx, revoked);
    });
  }

  /**
   * Applies a publisher's withdrawals (from a catalog the device accepted) in one transaction:
   * each is kept for good (installing that release again is refused, `beginInstall`, from any
   * catalog or bundle); each installed version they name (same id, version and sequence) becomes `withdrawn`, and an
   * active one hands over as a revoked one does. Except the only version that can answer: it
   * stays active, marked withdrawn, so a field device never loses its model, and no one key can
   * take a model away from devices, until another version is activated (`activate`). Returns the
   * versions whose state changed.
   */
  async withdraw(withdrawals: readonly Withdrawal[], from: CatalogSource): Promise<HandOver[]> {
    return this.write(['versions', 'pointers', 'sequences', 'withdrawals'], async (tx) => {
      await keepWithdrawals(tx, withdrawals, from);
      const versions = tx.objectStore('versions');
      /** `pointer`: the model's, when this version is its active one (nothing moves pointers before handOver). */
      const named: { version: VersionRecord; reason: string; pointer?: PointerRecord }[] = [];
      for (const { key, sequence, reason } of withdrawals) {
        const version = await versions.get(key);
        if (!version || version.sequence !== sequence || (version.status !== 'ready' && version.status !== 'downloading')) continue;
        const pointer = await tx.objectStore('pointers').get(version.id);
        named.push({ version, reason, ...(pointer?.active === key ? { pointer } : {}) });
      }
      // Inactive ones first, so that an active one's fallback is never a version withdrawn with it.
      named.sort((a, b) => Number(a.pointer !== undefined) - Number(b.pointer !== undefined));
      const disabled: VersionRecord[] = [];
      const kept: HandOver[] = [];
      for (const { version: v, reason, pointer } of named) {
        if (pointer && !(await fallbackFor(tx, pointer, v.key))) {
          if (v.withdrawn === undefined) kept.push({ id: v.id, version: v.version, wasActive: true, kept: true });
          await versions.put({ ...v, withdrawn: reason });
          continue;
        }
        await versions.put({ ...v, status: 'withdrawn', withdrawn: reason });
        disabled.push(v);
      }
      return [...kept, ...await handOver(tx, disabled)];
    });
  }

  /**
   * Whether a catalog this device accepted withdrew each of `releases` (id@version key and
   * sequence), in one read: a catalog's listing asks for all its entries at once, and the store
   * keeps at most MAX_WITHDRAWALS_PER_MODEL per model.
   */
  async withdrawnOf(releases: readonly { key: string; sequence: number }[]): Promise<boolean[]> {
    const kept = new Set(await this.db.getAllKeys('withdrawals'));
    return releases.map((release) => kept.has(withdrawalKey(release)));
  }

  // --- deployment files and catalogs --------------------------------------------------------

  async deploymentFile(name: string): Promise<unknown> {
    return (await this.db.get('deployment', name))?.json;
  }

  /**
   * Saves `json` as the copy of `name` to use from now on, unless `assertAcceptable`, given the
   * copy saved so far, throws (a trust store older than the last one accepted). One
   * transaction: two answers racing (a start's and an update check's) cannot lower the floor.
   */
  async acceptDeploymentFile(name: string, json: unknown, assertAcceptable: (saved: unknown) => void = () => undefined): Promise<void> {
    await this.write(['deployment'], async (tx) => {
      assertAcceptable((await tx.objectStore('deployment').get(name))?.json);
      await tx.objectStore('deployment').put({ name, json });
    });
  }

  /** Records a verified catalog listing `listed` as the last one from its URL, unless catalogStampAfter refuses it. */
  async acceptCatalog(stamp: CatalogStamp & { keyIds: string[] }, listed: readonly string[], trusted: TrustedFor): Promise<void> {
    await this.write(['catalogs'], async (tx) => {
      await tx.objectStore('catalogs').put(catalogStampAfter(await tx.objectStore('catalogs').get(stamp.url), stamp, listed, trusted));
    });
  }

  /**
   * Bytes held by chunks (each counted once, however many versions share it), from metadata only:
   * the keys of the chunks present and the sizes their manifests give. The Models and Metrics
   * screens ask on every progress tick, so no chunk's bytes are read.
   */
  async chunkBytes(): Promise<number> {
    const tx = this.db.transaction(['chunks', 'manifests']);
    const [present, manifests] = await Promise.all([tx.objectStore('chunks').getAllKeys(), tx.objectStore('manifests').getAll()]);
    const sizes = new Map<string, number>();
    for (const record of manifests) {
      for (const file of parseManifest(new Uint8Array(record.bytes)).files) {
        file.chunks.forEach((sha, i) => {
          const { start, end } = chunkRange(file, i);
          sizes.set(sha, end - start);
        });
      }
    }
    // A chunk no manifest lists is garbage about to be collected; it is not a model's.
    return present.reduce((total, sha) => total + (sizes.get(sha) ?? 0), 0);
  }
}

/**
 * Keeps `withdrawals` for good (see `withdrawals` in the schema), storage bounded: a catalog may
 * list a thousand withdrawals of ids it makes up, at every update check, and none of that may
 * fill the device. For a model this device has (installed, or activated once: a sequence floor),
 * at most MAX_WITHDRAWALS_PER_MODEL, the highest sequences. For one it never had, kept too (a
 * colleague's device may share that release as a bundle later, offline), at most
 * MAX_UNHELD_WITHDRAWALS_PER_CATALOG per catalog URL, the newest catalogs': a URL's catalogs are
 * one publisher's (catalogStampAfter), so only that publisher can crowd its own out.
 */
async function keepWithdrawals(tx: WriteTx<Name[]>, withdrawals: readonly Withdrawal[], from: CatalogSource): Promise<void> {
  const store = tx.objectStore('withdrawals');
  const byModel = new Map<string, Withdrawal[]>();
  for (const w of withdrawals) {
    const ofModel = byModel.get(modelOf(w.key));
    if (ofModel) ofModel.push(w);
    else byModel.set(modelOf(w.key), [w]);
  }
  let unheld = false;
  for (const [id, ofModel] of byModel) {
    const known = (await tx.objectStore('pointers').getKey(id)) !== undefined || (await tx.objectStore('sequences').getKey(id)) !== undefined;
    for (const w of ofModel) await store.put({ ...w, key: withdrawalKey(w), ...(known ? {} : { from }) });
    if (!known) {
      unheld = true;
      continue;
    }
    // Keys are `id@version#sequence`, and no id holds an "@": this range is this model's alone.
    const kept = await store.getAll(IDBKeyRange.bound(`${id}@`, `${id}@\uffff`));
    for (const w of kept.sort((a, b) => b.sequence - a.sequence).slice(MAX_WITHDRAWALS_PER_MODEL)) await store.delete(w.key);
  }
  if (!unheld) return;
  const fromHere = (await store.getAll()).filter((w) => w.from?.url === from.url);
  for (const w of fromHere.sort((a, b) => (b.from?.version ?? 0) - (a.from?.version ?? 0)).slice(MAX_UNHELD_WITHDRAWALS_PER_CATALOG)) await store.delete(w.key);
}

function without(pointer: PointerRecord, field: 'previous' | 'shadow'): PointerRecord {
  const { [field]: _dropped, ...rest } = pointer;
  return rest;
}

/**
 * Keeps each model's active, previous and shadow versions, any download still worth resuming, and
 * the revoked versions of a model left with no active version (a trust store that vouches for
 * them again brings the model back: applyTrustVerdicts); deletes every other version and every
 * chunk none of the kept versions uses, except the records of refused releases still newer than
 * what was activated.
 */
async function collectGarbage(tx: WriteTx<Name[]>, policy: KeyPolicy): Promise<void> {
  const retained = new Set<string>();
  const answering = new Set<string>();
  for (const p of await tx.objectStore('pointers').getAll()) {
    answering.add(p.id);
    retained.add(p.active);
    if (p.previous) retained.add(p.previous);
    if (p.shadow) retained.add(p.shadow);
  }
  const highest = new Map((await tx.objectStore('sequences').getAll()).map((s) => [s.id, effectiveFloor(s, policy)]));
  for (const v of await tx.objectStore('versions').getAll()) {
    const resumable = v.status === 'downloading' && v.sequence >= (highest.get(v.id) ?? 0);
    const lastHope = v.status === 'revoked' && !answering.has(v.id);
    if (retained.has(v.key) || resumable || lastHope) {
      retained.add(v.key);
      continue;
    }
    // A refused release newer than anything activated keeps its record, not its bytes: that is
    // what stops automatic updates downloading it again only to refuse it again (isUpdate).
    if (v.status === 'rejected' && v.sequence > (highest.get(v.id) ?? -1)) continue;
    await tx.objectStore('versions').delete(v.key);
    await tx.objectStore('manifests').delete(v.key);
  }
  const referenced = new Set<string>();
  for (const key of retained) for (const sha of (await tx.objectStore('manifests').get(key))?.chunks ?? []) referenced.add(sha);
  for (const sha of await tx.objectStore('chunks').getAllKeys()) {
    if (!referenced.has(sha)) await tx.objectStore('chunks').delete(sha);
  }
}
