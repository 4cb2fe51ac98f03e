import 'fake-indexeddb/auto';
import { beforeAll, describe, expect, it } from 'vitest';
import { DowngradeError, QuotaError, StorageError, ValidationError } from '../errors.ts';
import { totalSize, versionKey } from './manifest.ts';
import { ModelStore } from './model-store.ts';
import { freshStore, keyAndTrust, makeRelease, type TestRelease } from './test-helpers.ts';
import type { KeyFile } from './trust.ts';
import { sha256Hex } from './bytes.ts';

const isWithdrawn = async (store: ModelStore, release: { key: string; sequence: number }) => (await store.withdrawnOf([release]))[0];

let key: KeyFile;
beforeAll(async () => ({ key } = await keyAndTrust()));

/** Stores every chunk of a release (as a verified download would) and activates it. */
async function install(store: ModelStore, release: TestRelease): Promise<void> {
  await store.beginInstall(release.manifest, release.bytes, release.signatures, { keyIds: [key.keyId], sourceUrl: 'https://example.test/demo/manifest.json' });
  await putChunks(store, release);
  await store.activate(versionKey(release.manifest));
}

async function putChunks(store: ModelStore, release: TestRelease, limit = Infinity): Promise<void> {
  let n = 0;
  for (const file of release.manifest.files) {
    const bytes = release.files.get(file.path)!;
    for (let i = 0; i < file.chunks.length && n < limit; i++, n++) {
      await store.putChunk(file.chunks[i]!, bytes.slice(i * file.chunkSize, (i + 1) * file.chunkSize).buffer);
    }
  }
}

/** Stores a release whole without activating it: its version key. */
async function stored(store: ModelStore, release: TestRelease): Promise<string> {
  await store.beginInstall(release.manifest, release.bytes, release.signatures, { keyIds: [key.keyId] });
  await putChunks(store, release);
  return versionKey(release.manifest);
}

const allChunks = (r: TestRelease) => r.manifest.files.flatMap((f) => f.chunks);
/** The chunks of `r` that none of `others` lists (never empty here: each release's model bytes differ). */
function onlyIn(r: TestRelease, others: readonly string[]): string[] {
  const own = allChunks(r).filter((sha) => !others.includes(sha));
  expect(own.length).toBeGreaterThan(0);
  return own;
}

describe('ModelStore activation', () => {
  it('activates only a completely stored version, and changes nothing otherwise', async () => {
    const store = await freshStore();
    const v1 = await makeRelease(key, { version: '1.0.0', sequence: 1 });
    await store.beginInstall(v1.manifest, v1.bytes, v1.signatures, { keyIds: [key.keyId] });
    await putChunks(store, v1, 2);
    await expect(store.activate('demo@1.0.0')).rejects.toThrow(StorageError);
    expect(await store.pointer('demo')).toBeUndefined();
    expect(await store.highestSequence('demo')).toBeUndefined();
    expect((await store.version('demo@1.0.0'))?.status).toBe('downloading');
    await putChunks(store, v1);
    await store.activate('demo@1.0.0');
    expect(await store.pointer('demo')).toEqual({ id: 'demo', active: 'demo@1.0.0' });
    expect((await store.version('demo@1.0.0'))?.status).toBe('ready');
    expect(await store.highestSequence('demo')).toBe(1);
  });

  it('moves the old active version to previous', async () => {
    const store = await freshStore();
    await install(store, await makeRelease(key, { version: '1.0.0', sequence: 1 }));
    await install(store, await makeRelease(key, { version: '1.1.0', sequence: 2 }));
    expect(await store.pointer('demo')).toEqual({ id: 'demo', active: 'demo@1.1.0', previous: 'demo@1.0.0' });
  });
});

describe('ModelStore downgrade rules', () => {
  it('refuses a manifest with a lower sequence than the highest activated, before storing anything', async () => {
    const store = await freshStore();
    await install(store, await makeRelease(key, { version: '2.0.0', sequence: 5 }));
    const old = await makeRelease(key, { version: '1.0.0', sequence: 4 });
    await expect(store.beginInstall(old.manifest, old.bytes, old.signatures, { keyIds: [key.keyId] })).rejects.toThrow(DowngradeError);
    expect(await store.version('demo@1.0.0')).toBeUndefined();
    expect((await store.pointer('demo'))?.active).toBe('demo@2.0.0');
  });

  it('a newer release activated meanwhile wins over an older unfinished one', async () => {
    const store = await freshStore();
    const older = await makeRelease(key, { version: '1.0.0', sequence: 1 });
    await store.beginInstall(older.manifest, older.bytes, older.signatures, { keyIds: [key.keyId] });
    await putChunks(store, older);
    await install(store, await makeRelease(key, { version: '2.0.0', sequence: 2 }));
    await expect(store.activate('demo@1.0.0')).rejects.toThrow(StorageError);
    expect(await store.version('demo@1.0.0')).toBeUndefined();
    expect((await store.pointer('demo'))?.active).toBe('demo@2.0.0');
  });

  it('allows an explicit rollback to a retained version, and keeps the highest sequence', async () => {
    const store = await freshStore();
    await install(store, await makeRelease(key, { version: '1.0.0', sequence: 1 }));
    await install(store, await makeRelease(key, { version: '1.1.0', sequence: 2 }));
    await store.rollback('demo', 'demo@1.0.0');
    expect(await store.pointer('demo')).toEqual({ id: 'demo', active: 'demo@1.0.0', previous: 'demo@1.1.0' });
    expect(await store.highestSequence('demo')).toBe(2);
    // Replay protection still holds after the rollback.
    const replay = await makeRelease(key, { version: '0.9.0', sequence: 0 });
    await expect(store.beginInstall(replay.manifest, replay.bytes, replay.signatures, { keyIds: [key.keyId] })).rejects.toThrow(DowngradeError);
  });

  it('refuses a rollback to a version that is not retained', async () => {
    const store = await freshStore();
    await install(store, await makeRelease(key, { version: '1.0.0', sequence: 1 }));
    await expect(store.rollback('demo', 'demo@0.5.0')).rejects.toThrow(StorageError);
  });

  it('keeps the highest sequence after the model is removed', async () => {
    const store = await freshStore();
    await install(store, await makeRelease(key, { version: '1.0.0', sequence: 7 }));
    await store.removeModel('demo');
    expect(await store.pointer('demo')).toBeUndefined();
    expect(await store.chunkBytes()).toBe(0);
    const replay = await makeRelease(key, { version: '0.1.0', sequence: 3 });
    await expect(store.beginInstall(replay.manifest, replay.bytes, replay.signatures, { keyIds: [key.keyId] })).rejects.toThrow(DowngradeError);
  });
});

describe('ModelStore.chunkBytes', () => {
  it('counts the chunks present once each, shared or not, as their manifests size them', async () => {
    const store = await freshStore();
    const shared = new Uint8Array(9000).fill(7);
    const v1 = await makeRelease(key, { version: '1.0.0', sequence: 1 }, shared);
    await install(store, v1);
    const unique = (releases: TestRelease[]) => {
      const sizes = new Map<string, number>();
      for (const r of releases) for (const f of r.manifest.files) f.chunks.forEach((sha, i) => sizes.set(sha, Math.min(f.chunkSize, f.size - i * f.chunkSize)));
      return [...sizes.values()].reduce((a, b) => a + b, 0);
    };
    expect(await store.chunkBytes()).toBe(unique([v1]));
    // Same onnx, new config: only the config's chunk is new.
    const v2 = await makeRelease(key, { version: '1.1.0', sequence: 2 }, shared);
    await install(store, v2);
    expect(await store.chunkBytes()).toBe(unique([v1, v2]));
    expect(await store.chunkBytes()).toBeLessThan(totalSize(v1.manifest) + totalSize(v2.manifest));
    // A partial download counts only what arrived.
    const pending = await makeRelease(key, { version: '2.0.0', sequence: 3 });
    await store.beginInstall(pending.manifest, pending.bytes, pending.signatures, { keyIds: [key.keyId] });
    await putChunks(store, pending, 1);
    expect(await store.chunkBytes()).toBe(unique([v1, v2]) + pending.manifest.files[0]!.chunkSize);
  });
});

describe('ModelStore garbage collection', () => {
  it('keeps active and previous, deletes older versions and only their unshared chunks', async () => {
    const store = await freshStore();
    // All three share the config chunk only if the config is identical: make the onnx differ.
    const v1 = await makeRelease(key, { version: '1.0.0', sequence: 1 });
    const v2 = await makeRelease(key, { version: '1.1.0', sequence: 2 });
    const v3 = await makeRelease(key, { version: '1.2.0', sequence: 3 });
    await install(store, v1);
    await install(store, v2);
    await install(store, v3);
    expect((await store.versions('demo')).map((v) => v.key).sort()).toEqual(['demo@1.1.0', 'demo@1.2.0']);
    expect(await store.manifest('demo@1.0.0')).toBeUndefined();
    const retained = [...allChunks(v2), ...allChunks(v3)];
    // v1's tokenizer.json is the same file as theirs: that chunk is shared, the rest is v1's alone.
    for (const sha of onlyIn(v1, retained)) expect(await store.hasChunk(sha)).toBe(false);
    for (const sha of retained) expect(await store.hasChunk(sha)).toBe(true);
  });

  it('never deletes a chunk shared with a retained version', async () => {
    const store = await freshStore();
    const shared = new Uint8Array(9000).fill(7);
    const v1 = await makeRelease(key, { version: '1.0.0', sequence: 1 }, shared);
    const v2 = await makeRelease(key, { version: '1.1.0', sequence: 2 }, shared);
    const v3 = await makeRelease(key, { version: '1.2.0', sequence: 3 }, shared);
    await install(store, v1);
    await install(store, v2);
    await install(store, v3);
    for (const sha of allChunks(v3)) expect(await store.hasChunk(sha)).toBe(true);
  });

  it('keeps an unfinished newer download for resume, but not one that is already outdated', async () => {
    const store = await freshStore();
    await install(store, await makeRelease(key, { version: '1.0.0', sequence: 1 }));
    const pending = await makeRelease(key, { version: '3.0.0', sequence: 3 });
    await store.beginInstall(pending.manifest, pending.bytes, pending.signatures, { keyIds: [key.keyId] });
    await putChunks(store, pending, 1);
    await install(store, await makeRelease(key, { version: '2.0.0', sequence: 2 }));
    expect((await store.version('demo@3.0.0'))?.status).toBe('downloading');
    expect(await store.hasChunk(allChunks(pending)[0]!)).toBe(true);
    await install(store, await makeRelease(key, { version: '4.0.0', sequence: 4 }));
    expect(await store.version('demo@3.0.0')).toBeUndefined();
    expect(await store.hasChunk(allChunks(pending)[0]!)).toBe(false);
  });

  it('removes a non-active version but refuses to remove the active one', async () => {
    const store = await freshStore();
    const v1 = await makeRelease(key, { version: '1.0.0', sequence: 1 });
    const v2 = await makeRelease(key, { version: '1.1.0', sequence: 2 });
    await install(store, v1);
    await install(store, v2);
    await expect(store.removeVersion('demo@1.1.0')).rejects.toThrow(/active version cannot be deleted/);
    await store.removeVersion('demo@1.0.0');
    expect(await store.pointer('demo')).toEqual({ id: 'demo', active: 'demo@1.1.0' });
    for (const sha of onlyIn(v1, allChunks(v2))) expect(await store.hasChunk(sha)).toBe(false);
    for (const sha of allChunks(v2)) expect(await store.hasChunk(sha)).toBe(true);
  });
});

describe('ModelStore quarantine', () => {
  it('falls back to the previous version and drops the bad chunks', async () => {
    const store = await freshStore();
    await install(store, await makeRelease(key, { version: '1.0.0', sequence: 1 }));
    const v2 = await makeRelease(key, { version: '1.1.0', sequence: 2 });
    await install(store, v2);
    const bad = allChunks(v2)[1]!;
    expect(await store.quarantine('demo@1.1.0', 'corrupt', [bad])).toBe('demo@1.0.0');
    expect(await store.pointer('demo')).toEqual({ id: 'demo', active: 'demo@1.0.0' });
    expect((await store.version('demo@1.1.0'))?.status).toBe('quarantined');
    expect(await store.hasChunk(bad)).toBe(false);
    await expect(store.rollback('demo', 'demo@1.1.0')).rejects.toThrow(StorageError);
  });

  it('leaves no active version when there is nothing to fall back to', async () => {
    const store = await freshStore();
    await install(store, await makeRelease(key, { version: '1.0.0', sequence: 1 }));
    expect(await store.quarantine('demo@1.0.0', 'corrupt', [])).toBeUndefined();
    expect(await store.pointer('demo')).toBeUndefined();
  });
});

describe('ModelStore storage errors', () => {
  it('turns a QuotaExceededError into QuotaError and keeps installed versions intact', async () => {
    const store = await freshStore();
    const v1 = await makeRelease(key, { version: '1.0.0', sequence: 1 });
    await install(store, v1);
    const original = IDBObjectStore.prototype.put;
    IDBObjectStore.prototype.put = function put(this: IDBObjectStore, ...args: Parameters<IDBObjectStore['put']>) {
      if (this.name === 'chunks') throw new DOMException('full', 'QuotaExceededError');
      return original.apply(this, args);
    };
    try {
      await expect(store.putChunk(await sha256Hex(new Uint8Array([1])), new Uint8Array([1]).buffer)).rejects.toThrow(QuotaError);
    } finally {
      IDBObjectStore.prototype.put = original;
    }
    expect(await store.pointer('demo')).toEqual({ id: 'demo', active: 'demo@1.0.0' });
    for (const sha of allChunks(v1)) expect(await store.hasChunk(sha)).toBe(true);
  });
});

describe('ModelStore shadow candidates', () => {

  it('puts a complete candidate in shadow next to the active version, which keeps answering', async () => {
    const store = await freshStore();
    await install(store, await makeRelease(key, { version: '1.0.0', sequence: 1 }));
    const candidate = await stored(store, await makeRelease(key, { version: '1.1.0', sequence: 2 }));
    await store.enterShadow(candidate);
    expect(await store.pointer('demo')).toEqual({ id: 'demo', active: 'demo@1.0.0', shadow: candidate });
    expect((await store.version(candidate))?.status).toBe('ready');
    // Not activated: the highest sequence is unchanged, so the active version is no downgrade.
    expect(await store.highestSequence('demo')).toBe(1);
  });

  it('keeps the candidate through another version\'s activation and garbage collection', async () => {
    const store = await freshStore();
    await install(store, await makeRelease(key, { version: '1.0.0', sequence: 1 }));
    const candidate = await stored(store, await makeRelease(key, { version: '2.0.0', sequence: 3 }));
    await store.enterShadow(candidate);
    await install(store, await makeRelease(key, { version: '1.1.0', sequence: 2 }));
    expect(await store.pointer('demo')).toEqual({ id: 'demo', active: 'demo@1.1.0', previous: 'demo@1.0.0', shadow: candidate });
    expect(await store.version(candidate)).toBeDefined();
  });

  it('an activation at or above the candidate\'s sequence ends its evaluation: it could never be promoted', async () => {
    const store = await freshStore();
    await install(store, await makeRelease(key, { version: '1.0.0', sequence: 1 }));
    const candidate = await stored(store, await makeRelease(key, { version: '1.1.0', sequence: 2 }));
    await store.enterShadow(candidate);
    // E.g. a staged rollout of 1.2.0 reached the device while 1.1.0 was still in shadow.
    await install(store, await makeRelease(key, { version: '1.2.0', sequence: 3 }));
    expect(await store.pointer('demo')).toEqual({ id: 'demo', active: 'demo@1.2.0', previous: 'demo@1.0.0' });
    // Collected with the other versions nothing retains (its promotion would be a downgrade).
    expect(await store.version(candidate)).toBeUndefined();
  });

  it('promotion is an activation: the candidate becomes active, the old one previous, no shadow left', async () => {
    const store = await freshStore();
    await install(store, await makeRelease(key, { version: '1.0.0', sequence: 1 }));
    const candidate = await stored(store, await makeRelease(key, { version: '1.1.0', sequence: 2 }));
    await store.enterShadow(candidate);
    await store.activate(candidate);
    expect(await store.pointer('demo')).toEqual({ id: 'demo', active: candidate, previous: 'demo@1.0.0' });
    expect(await store.highestSequence('demo')).toBe(2);
  });

  it('a candidate whose key is revoked leaves shadow and cannot be promoted; the active version stays', async () => {
    const store = await freshStore();
    await install(store, await makeRelease(key, { version: '1.0.0', sequence: 1 }));
    const candidate = await stored(store, await makeRelease(key, { version: '1.1.0', sequence: 2 }));
    await store.enterShadow(candidate);
    await store.applyTrustVerdicts(new Map([[candidate, false], ['demo@1.0.0', true]]));
    expect(await store.pointer('demo')).toEqual({ id: 'demo', active: 'demo@1.0.0' });
    await expect(store.activate(candidate)).rejects.toThrow(StorageError);
    await expect(store.enterShadow(candidate)).rejects.toThrow(StorageError);
    expect((await store.pointer('demo'))?.active).toBe('demo@1.0.0');
  });

  it('a revocation never promotes the candidate in shadow: the active falls back to its previous, or to nothing', async () => {
    const store = await freshStore();
    await install(store, await makeRelease(key, { version: '1.0.0', sequence: 1 }));
    await install(store, await makeRelease(key, { version: '1.1.0', sequence: 2 }));
    const candidate = await stored(store, await makeRelease(key, { version: '2.0.0', sequence: 3 }));
    await store.enterShadow(candidate);
    await store.applyTrustVerdicts(new Map([['demo@1.1.0', false]]));
    expect(await store.pointer('demo')).toEqual({ id: 'demo', active: 'demo@1.0.0', shadow: candidate });
    await store.applyTrustVerdicts(new Map([['demo@1.0.0', false]]));
    expect((await store.pointer('demo'))?.active).not.toBe(candidate);
  });

  it('rejection marks the candidate with its reason and leaves the active version alone', async () => {
    const store = await freshStore();
    await install(store, await makeRelease(key, { version: '1.0.0', sequence: 1 }));
    const candidate = await stored(store, await makeRelease(key, { version: '1.1.0', sequence: 2 }));
    await store.enterShadow(candidate);
    await store.rejectShadow(candidate, 'rejected after 50 shadow runs: 40.0% agreement');
    expect(await store.pointer('demo')).toEqual({ id: 'demo', active: 'demo@1.0.0' });
    expect(await store.version(candidate)).toMatchObject({ status: 'rejected', reason: 'rejected after 50 shadow runs: 40.0% agreement' });
    await expect(store.activate(candidate)).rejects.toThrow(StorageError);
    await expect(store.rejectShadow(candidate, 'again')).rejects.toThrow(StorageError);
  });

  it('refuses an incomplete candidate, the active version, and a model with nothing active', async () => {
    const store = await freshStore();
    const lone = await stored(store, await makeRelease(key, { version: '0.5.0', sequence: 1 }));
    await expect(store.enterShadow(lone)).rejects.toThrow(/next to an active one/);
    await install(store, await makeRelease(key, { version: '2.0.0', sequence: 5 }));
    await expect(store.enterShadow('demo@2.0.0')).rejects.toThrow(StorageError);
    const partial = await makeRelease(key, { version: '3.0.0', sequence: 6 });
    await store.beginInstall(partial.manifest, partial.bytes, partial.signatures, { keyIds: [key.keyId] });
    await putChunks(store, partial, 1);
    await expect(store.enterShadow('demo@3.0.0')).rejects.toThrow(/not completely downloaded/);
    expect(await store.pointer('demo')).toEqual({ id: 'demo', active: 'demo@2.0.0' });
  });

  it('a quarantined candidate leaves shadow; the active version is untouched', async () => {
    const store = await freshStore();
    await install(store, await makeRelease(key, { version: '1.0.0', sequence: 1 }));
    const release = await makeRelease(key, { version: '1.1.0', sequence: 2 });
    const candidate = await stored(store, release);
    await store.enterShadow(candidate);
    expect(await store.quarantine(candidate, 'bad bytes', [allChunks(release)[0]!])).toBe('demo@1.0.0');
    expect(await store.pointer('demo')).toEqual({ id: 'demo', active: 'demo@1.0.0' });
  });
});

const reason = 'mislabels boots as sandals';
/** The catalog the withdrawals below came from. */
const catalogSource = { url: 'https://models.example/catalog.json', version: 1 };

describe('ModelStore withdrawals (a publisher takes a release back)', () => {
  /** Two versions installed in order: 1.1.0 active, 1.0.0 previous. */
  async function twoVersions(): Promise<ModelStore> {
    const store = await freshStore();
    await install(store, await makeRelease(key, { version: '1.0.0', sequence: 1 }));
    await install(store, await makeRelease(key, { version: '1.1.0', sequence: 2 }));
    return store;
  }

  it('hands an active withdrawn version over to the previous one, for good: no rollback to it, no activation, no second notice', async () => {
    const store = await twoVersions();
    expect(await store.withdraw([{ key: 'demo@1.1.0', sequence: 2, reason }], catalogSource)).toEqual([{ id: 'demo', version: '1.1.0', wasActive: true, fallback: '1.0.0' }]);
    expect(await store.pointer('demo')).toEqual({ id: 'demo', active: 'demo@1.0.0' });
    expect(await store.version('demo@1.1.0')).toMatchObject({ status: 'withdrawn', withdrawn: reason });
    await expect(store.activate('demo@1.1.0')).rejects.toThrow(new ValidationError(`Version 1.1.0 of demo was withdrawn by its publisher ("${reason}"); it is not installed again on this device.`, { id: 'demo', version: '1.1.0' }));
    await expect(store.rollback('demo', 'demo@1.1.0')).rejects.toThrow(StorageError);
    // The catalog says it again at every update check: nothing changes any more.
    expect(await store.withdraw([{ key: 'demo@1.1.0', sequence: 2, reason }], catalogSource)).toEqual([]);
    // A trust store vouching for it again does not bring it back (only a revocation is undone so).
    await store.applyTrustVerdicts(new Map([['demo@1.1.0', true]]));
    expect((await store.version('demo@1.1.0'))?.status).toBe('withdrawn');
  });

  it('keeps the only version that can answer active, marked withdrawn, and tells of it once; a version withdrawn with its fallback does not count as one', async () => {
    const store = await twoVersions();
    // Both withdrawn in one catalog: 1.0.0 cannot stand in for 1.1.0, so 1.1.0 keeps answering.
    const both = [{ key: 'demo@1.1.0', sequence: 2, reason }, { key: 'demo@1.0.0', sequence: 1, reason }];
    expect(await store.withdraw(both, catalogSource)).toEqual([
      { id: 'demo', version: '1.1.0', wasActive: true, kept: true },
      { id: 'demo', version: '1.0.0', wasActive: false },
    ]);
    expect(await store.pointer('demo')).toEqual({ id: 'demo', active: 'demo@1.1.0' });
    expect(await store.version('demo@1.1.0')).toMatchObject({ status: 'ready', withdrawn: reason });
    expect((await store.version('demo@1.0.0'))?.status).toBe('withdrawn');
    expect(await store.withdraw(both, catalogSource)).toEqual([]);
    // Once another version answers, the kept one is withdrawn for good: never the previous version,
    // so neither a rollback nor an automatic one returns to it, and its bytes are collected.
    await install(store, await makeRelease(key, { version: '1.2.0', sequence: 3 }));
    expect(await store.pointer('demo')).toEqual({ id: 'demo', active: 'demo@1.2.0' });
    await expect(store.rollback('demo', 'demo@1.1.0')).rejects.toThrow(StorageError);
    expect(await store.rollBackFrom('demo@1.2.0', 'failed')).toBeUndefined();
    expect(await store.version('demo@1.1.0')).toBeUndefined();
    expect(await store.withdraw(both, catalogSource)).toEqual([]);
  });

  it('a download withdrawn before it finished is not activated, and says why', async () => {
    const store = await freshStore();
    await install(store, await makeRelease(key, { version: '1.0.0', sequence: 1 }));
    const next = await makeRelease(key, { version: '1.1.0', sequence: 2 });
    await store.beginInstall(next.manifest, next.bytes, next.signatures, { keyIds: [key.keyId] });
    expect(await store.withdraw([{ key: 'demo@1.1.0', sequence: 2, reason }], catalogSource)).toEqual([{ id: 'demo', version: '1.1.0', wasActive: false }]);
    await putChunks(store, next);
    await expect(store.activate('demo@1.1.0')).rejects.toThrow(/withdrawn by its publisher/);
    expect(await store.pointer('demo')).toEqual({ id: 'demo', active: 'demo@1.0.0' });
  });

  it('passes over what the catalog does not name exactly (another sequence under the same version, a version not installed) and a candidate in shadow is never promoted by it', async () => {
    const store = await twoVersions();
    expect(await store.withdraw([{ key: 'demo@1.1.0', sequence: 7, reason }, { key: 'demo@9.0.0', sequence: 9, reason }], catalogSource)).toEqual([]);
    expect((await store.version('demo@1.1.0'))?.status).toBe('ready');
    const candidate = await stored(store, await makeRelease(key, { version: '2.0.0', sequence: 4 }));
    await store.enterShadow(candidate);
    await store.withdraw([{ key: 'demo@1.1.0', sequence: 2, reason }], catalogSource);
    expect(await store.pointer('demo')).toEqual({ id: 'demo', active: 'demo@1.0.0', shadow: candidate });
    await store.withdraw([{ key: candidate, sequence: 4, reason }], catalogSource);
    expect(await store.pointer('demo')).toEqual({ id: 'demo', active: 'demo@1.0.0' });
  });

  it('keeps withdrawals of models never had here per catalog URL, the newest catalogs\' first: one URL\'s flood crowds out none of another\'s', async () => {
    const store = await twoVersions();
    const other = { url: 'https://mirror.example/catalog.json', version: 1 };
    await store.withdraw([{ key: 'elsewhere@1.0.0', sequence: 1, reason }], other);
    const flood = (version: number) => Array.from({ length: 600 }, (_, i) => ({ key: `made/up-${version}-${i}@1.0.0`, sequence: 1, reason }));
    for (const version of [1, 2, 3]) await store.withdraw(flood(version), { ...catalogSource, version });
    expect(await isWithdrawn(store, { key: 'elsewhere@1.0.0', sequence: 1 })).toBe(true);
    expect(await isWithdrawn(store, { key: 'made/up-3-599@1.0.0', sequence: 1 })).toBe(true);
    expect(await isWithdrawn(store, { key: 'made/up-1-0@1.0.0', sequence: 1 })).toBe(false);
    const fromFlood = (await Promise.all([1, 2, 3].flatMap((v) => flood(v).map((w) => isWithdrawn(store, w))))).filter(Boolean).length;
    expect(fromFlood).toBe(1_000);
  });

  it('keeps every withdrawal for good: a release never installed here, or one whose record was collected or removed with its model, is refused', async () => {
    const store = await twoVersions();
    const never = await makeRelease(key, { version: '1.5.0', sequence: 5 });
    const refused = new ValidationError(`Version 1.5.0 of demo was withdrawn by its publisher ("${reason}"); it is not installed again on this device.`, { id: 'demo', version: '1.5.0' });
    await store.withdraw([{ key: 'demo@1.5.0', sequence: 5, reason }, { key: 'demo@1.1.0', sequence: 2, reason }], catalogSource);
    expect(await isWithdrawn(store, { key: 'demo@1.5.0', sequence: 5 })).toBe(true);
    expect(await isWithdrawn(store, { key: 'demo@1.5.0', sequence: 6 })).toBe(false);
    await expect(store.beginInstall(never.manifest, never.bytes, never.signatures, { keyIds: [key.keyId] })).rejects.toThrow(refused);
    // The withdrawn 1.1.0 was active, so the floor (its sequence) lets its identical manifest in
    // again; its record goes with the next activation's collection (of any model), and with the model.
    await install(store, await makeRelease(key, { id: 'other', version: '1.0.0', sequence: 1 }));
    expect(await store.version('demo@1.1.0')).toBeUndefined();
    const again = await makeRelease(key, { version: '1.1.0', sequence: 2 });
    const reinstall = () => store.beginInstall(again.manifest, again.bytes, again.signatures, { keyIds: [key.keyId] });
    await expect(reinstall()).rejects.toThrow(/1\.1\.0 of demo was withdrawn by its publisher/);
    await store.removeModel('demo');
    await expect(reinstall()).rejects.toThrow(/1\.1\.0 of demo was withdrawn by its publisher/);
    expect(await store.versions('demo')).toEqual([]);
  });
});

describe('ModelStore withdrawals kept within bounds', () => {
  it('keeps at most 64 withdrawals per model the device has, the highest sequences', async () => {
    const store = await freshStore();
    await install(store, await makeRelease(key, { version: '1.0.0', sequence: 1 }));
    await store.withdraw(Array.from({ length: 100 }, (_, i) => ({ key: `demo@9.${i}.0`, sequence: 1000 + i, reason })), catalogSource);
    expect(await isWithdrawn(store, { key: 'demo@9.99.0', sequence: 1099 })).toBe(true);
    expect(await isWithdrawn(store, { key: 'demo@9.36.0', sequence: 1036 })).toBe(true);
    expect(await isWithdrawn(store, { key: 'demo@9.35.0', sequence: 1035 })).toBe(false);
    // Below the 64 highest, a withdrawal is not kept.
    await store.withdraw([{ key: 'demo@1.0.0', sequence: 1, reason }], catalogSource);
    expect(await isWithdrawn(store, { key: 'demo@1.0.0', sequence: 1 })).toBe(false);
    // A model removed from the device is still one it had (its sequence floor outlives it).
    await store.removeModel('demo');
    await store.withdraw([{ key: 'demo@9.100.0', sequence: 1100, reason }], catalogSource);
    expect(await isWithdrawn(store, { key: 'demo@9.100.0', sequence: 1100 })).toBe(true);
  });
});

describe('ModelStore database upgrade', () => {
  it('carries the withdrawals of a version 2 database (kept then only in version records) into the store that keeps them', async () => {
    const name = `test-upgrade-${Date.now()}`;
    const old = await new Promise<IDBDatabase>((resolve, reject) => {
      const request = indexedDB.open(name, 2);
      request.onupgradeneeded = () => {
        const db = request.result;
        db.createObjectStore('chunks', { keyPath: 'sha256' });
        db.createObjectStore('manifests', { keyPath: 'key' });
        db.createObjectStore('versions', { keyPath: 'key' }).createIndex('byModel', 'id');
        for (const [store, keyPath] of [['pointers', 'id'], ['sequences', 'id'], ['deployment', 'name'], ['catalogs', 'url']]) db.createObjectStore(store!, { keyPath });
        const versions = request.transaction!.objectStore('versions');
        versions.put({ key: 'demo@1.1.0', id: 'demo', version: '1.1.0', sequence: 2, status: 'withdrawn', sizeBytes: 1, addedAt: 0, withdrawn: reason });
        versions.put({ key: 'demo@1.0.0', id: 'demo', version: '1.0.0', sequence: 1, status: 'ready', sizeBytes: 1, addedAt: 0 });
      };
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
    old.close();
    const store = await ModelStore.open(name);
    expect(await isWithdrawn(store, { key: 'demo@1.1.0', sequence: 2 })).toBe(true);
    expect(await isWithdrawn(store, { key: 'demo@1.0.0', sequence: 1 })).toBe(false);
    expect((await store.versions('demo')).map((v) => v.key)).toEqual(['demo@1.0.0', 'demo@1.1.0']);
    store.close();
  });
});
