import { openDB, type DBSchema, type IDBPDatabase, type IDBPTransaction, type StoreNames } from 'idb';
import { DowngradeError, LanternError, QuotaError, StorageError } from '../errors.ts';
import type { SignatureFile } from './trust.ts';
import { totalSize, versionKey, type Manifest } from './manifest.ts';

/**
 * The model registry's IndexedDB: content-addressed chunks, verified manifests, installed
 * versions, one active pointer per model and the highest sequence ever activated per model.
 * Every state change that must be all-or-nothing (activation, rollback, quarantine, removal,
 * garbage collection) happens in one readwrite transaction, so a crash or a full disk leaves
 * either the old state or the new one. Only bytes that were already verified are written here.
 */

/** `rejected`: failed its validation gate, or was rolled back automatically; never activated by itself. */
export type VersionStatus = 'downloading' | 'ready' | 'quarantined' | 'rejected';

export interface VersionRecord {
  key: string;
  id: string;
  version: string;
  sequence: number;
  status: VersionStatus;
  sizeBytes: number;
  addedAt: number;
  /** Why it was quarantined or rejected (a fixed message, never content). */
  reason?: string;
}

export interface ManifestRecord {
  key: string;
  /** The exact signed bytes. */
  bytes: ArrayBuffer;
  signatures: SignatureFile;
  /** Every chunk hash the version needs, for GC and completeness checks without re-parsing. */
  chunks: string[];
  /** Where it was downloaded from (absent for sideloaded bundles): resume and samples use it. */
  sourceUrl?: string;
}

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
  sequences: { key: string; value: { id: string; highest: number } };
}

type Name = StoreNames<StoreSchema>;
type WriteTx<S extends Name[]> = IDBPTransaction<StoreSchema, S, 'readwrite'>;
const ALL: Name[] = ['chunks', 'manifests', 'versions', 'pointers', 'sequences'];

export const isQuotaError = (error: unknown): boolean =>
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

  private constructor(private readonly handle: IDBPDatabase<StoreSchema>) {}

  /** Every operation goes through here, so a connection closed for another tab fails clearly. */
  private get db(): IDBPDatabase<StoreSchema> {
    if (this.closedByOtherTab) throw new StorageError('The model store is being upgraded by another Lantern tab; close the other tabs and reload this one. Installed models are unchanged.');
    return this.handle;
  }

  static async open(name = 'lantern-models'): Promise<ModelStore> {
    let store: ModelStore | undefined;
    try {
      const db = await openDB<StoreSchema>(name, 1, {
        upgrade(database) {
          database.createObjectStore('chunks', { keyPath: 'sha256' });
          database.createObjectStore('manifests', { keyPath: 'key' });
          database.createObjectStore('versions', { keyPath: 'key' }).createIndex('byModel', 'id');
          database.createObjectStore('pointers', { keyPath: 'id' });
          database.createObjectStore('sequences', { keyPath: 'id' });
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

  async highestSequence(id: string): Promise<number | undefined> {
    return (await this.db.get('sequences', id))?.highest;
  }

  // --- state changes ------------------------------------------------------------------------

  /** Throws DowngradeError when `release` is older than the highest sequence activated for its model. */
  async assertNotDowngrade(release: { id: string; version: string; sequence: number }): Promise<void> {
    await assertNotDowngrade(this.db.transaction('sequences').store, release);
  }

  /**
   * Records a verified manifest as a version being downloaded. Refuses (DowngradeError) a
   * sequence below the highest one activated for this model. Returns the version's record
   * (which may already be ready, e.g. a retained version).
   */
  async beginInstall(manifest: Manifest, bytes: Uint8Array, signatures: SignatureFile, sourceUrl?: string): Promise<VersionRecord> {
    const key = versionKey(manifest);
    return this.write(['manifests', 'versions', 'sequences'], async (tx) => {
      await assertNotDowngrade(tx.objectStore('sequences'), manifest);
      const existing = await tx.objectStore('versions').get(key);
      if (existing?.status === 'ready') return existing;
      const record: VersionRecord = {
        key, id: manifest.id, version: manifest.version, sequence: manifest.sequence,
        status: 'downloading', sizeBytes: totalSize(manifest), addedAt: Date.now(),
      };
      await tx.objectStore('manifests').put({
        key, bytes: bytes.slice().buffer as ArrayBuffer, signatures, chunks: chunkList(manifest),
        ...(sourceUrl ? { sourceUrl } : {}),
      });
      await tx.objectStore('versions').put(record);
      return record;
    });
  }

  /**
   * Makes a fully stored version the active one, in one transaction: re-checks that every chunk
   * is present and that the sequence is not a downgrade, moves the old active version to
   * `previous`, raises the highest sequence, then garbage-collects what is no longer retained.
   */
  async activate(key: string): Promise<void> {
    await this.write(ALL, async (tx) => {
      const version = await assertComplete(tx, key);
      const sequences = tx.objectStore('sequences');
      const old = await tx.objectStore('pointers').get(version.id);
      if (old?.active === key) return;
      await tx.objectStore('versions').put({ ...version, status: 'ready' });
      await tx.objectStore('pointers').put({ id: version.id, active: key, ...(old ? { previous: old.active } : {}), ...(old?.shadow && old.shadow !== key ? { shadow: old.shadow } : {}) });
      await sequences.put({ id: version.id, highest: Math.max(version.sequence, (await sequences.get(version.id))?.highest ?? 0) });
      await collectGarbage(tx);
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
   * the chunks that failed (so a reinstall fetches them again) and, if it was active, falls back
   * to the previous version. Returns the new active key, if any.
   */
  async quarantine(key: string, reason: string, badChunks: readonly string[]): Promise<string | undefined> {
    return this.write(['chunks', 'versions', 'pointers'], async (tx) => {
      const version = await tx.objectStore('versions').get(key);
      if (!version) return undefined;
      await tx.objectStore('versions').put({ ...version, status: 'quarantined', reason });
      for (const sha of badChunks) await tx.objectStore('chunks').delete(sha);
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
      const version = await assertComplete(tx, key);
      const pointer = await tx.objectStore('pointers').get(version.id);
      if (!pointer) throw new StorageError('A version can only be evaluated in shadow next to an active one.', { key });
      if (pointer.active === key) throw new StorageError('The active version cannot be put in shadow.', { key });
      await tx.objectStore('versions').put({ ...version, status: 'ready' });
      await tx.objectStore('pointers').put({ ...pointer, shadow: key });
      await collectGarbage(tx);
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
      await collectGarbage(tx);
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
      await collectGarbage(tx);
    });
  }

  /** Bytes held by chunks (each counted once, however many versions share it). */
  async chunkBytes(): Promise<number> {
    let total = 0;
    let cursor = await this.db.transaction('chunks').store.openCursor();
    while (cursor) {
      total += cursor.value.bytes.byteLength;
      cursor = await cursor.continue();
    }
    return total;
  }
}

/** A version that may be activated or evaluated: installed, not refused, every chunk stored, no downgrade. */
async function assertComplete(tx: WriteTx<Name[]>, key: string): Promise<VersionRecord> {
  const version = await tx.objectStore('versions').get(key);
  const manifest = await tx.objectStore('manifests').get(key);
  if (!version || !manifest || version.status === 'quarantined' || version.status === 'rejected') throw new StorageError('That version is not installed.', { key });
  for (const sha of manifest.chunks) {
    if ((await tx.objectStore('chunks').getKey(sha)) === undefined) throw new StorageError('That version is not completely downloaded.', { key });
  }
  await assertNotDowngrade(tx.objectStore('sequences'), version);
  return version;
}

function without(pointer: PointerRecord, field: 'previous' | 'shadow'): PointerRecord {
  const { [field]: _dropped, ...rest } = pointer;
  return rest;
}

async function assertNotDowngrade(
  sequences: { get(id: string): Promise<{ highest: number } | undefined> },
  release: { id: string; version: string; sequence: number },
): Promise<void> {
  const highest = (await sequences.get(release.id))?.highest;
  if (highest !== undefined && release.sequence < highest) {
    throw new DowngradeError(`Release ${release.version} of ${release.id} is older than one already installed; it was refused as a possible downgrade or replay.`, {
      id: release.id, sequence: release.sequence, highest,
    });
  }
}

/**
 * Keeps each model's active, previous and shadow versions and any download still worth resuming;
 * deletes every other version and every chunk none of the kept versions uses.
 */
async function collectGarbage(tx: WriteTx<Name[]>): Promise<void> {
  const retained = new Set<string>();
  for (const p of await tx.objectStore('pointers').getAll()) {
    retained.add(p.active);
    if (p.previous) retained.add(p.previous);
    if (p.shadow) retained.add(p.shadow);
  }
  const highest = new Map((await tx.objectStore('sequences').getAll()).map((s) => [s.id, s.highest]));
  for (const v of await tx.objectStore('versions').getAll()) {
    const resumable = v.status === 'downloading' && v.sequence >= (highest.get(v.id) ?? 0);
    if (retained.has(v.key) || resumable) {
      retained.add(v.key);
      continue;
    }
    await tx.objectStore('versions').delete(v.key);
    await tx.objectStore('manifests').delete(v.key);
  }
  const referenced = new Set<string>();
  for (const key of retained) for (const sha of (await tx.objectStore('manifests').get(key))?.chunks ?? []) referenced.add(sha);
  for (const sha of await tx.objectStore('chunks').getAllKeys()) {
    if (!referenced.has(sha)) await tx.objectStore('chunks').delete(sha);
  }
}
