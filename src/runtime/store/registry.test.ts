import 'fake-indexeddb/auto';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { BusyError, DowngradeError, IntegrityError, NetworkError, QuotaError, SignatureError, ValidationError } from '../errors.ts';
import { writeBundle } from './bundle.ts';
import { installBuiltins } from './bootstrap.ts';
import { parseCatalog } from './catalog.ts';
import { signedCatalog } from '../../../scripts/model-pack/release.ts';
import { totalSize } from './manifest.ts';
import { OriginPolicy } from './net.ts';
import { ModelRegistry, type StorageManagerLike } from './registry.ts';
import { StoreModelSource } from './store-model-source.ts';
import { FakeServer, freshStore, keyAndTrust, makeRelease, ORIGIN, urls, type TestRelease } from './test-helpers.ts';
import { generateKey, sign, type KeyFile, type TrustStore } from './trust.ts';
import { ModelStore } from './model-store.ts';
import { memoryStorage } from '../release/memory-storage.test-helpers.ts';
import type { KeyValueStorage } from '../release/stored-value.ts';

let key: KeyFile;
let trust: TrustStore;
beforeAll(async () => ({ key, trust } = await keyAndTrust()));

function registryFor(store: ModelStore, server: FakeServer, storage?: StorageManagerLike, noticeStorage?: KeyValueStorage): ModelRegistry {
  return new ModelRegistry({ store, trust, policy: new OriginPolicy(ORIGIN), fetch: server.fetch, storage, noticeStorage, backoffMs: 1, retries: 2 });
}

async function setup(...versions: [string, number][]) {
  const store = await freshStore();
  const server = new FakeServer();
  const releases = new Map<string, TestRelease>();
  for (const [version, sequence] of versions) {
    const release = await makeRelease(key, { version, sequence });
    releases.set(version, release);
    server.add(release);
  }
  return { store, server, releases, registry: registryFor(store, server) };
}

describe('ModelRegistry.install', () => {
  it('downloads with Range requests (a file of one chunk whole, so it may come compressed), verifies, activates and reads back verified', async () => {
    const { registry, server, store } = await setup(['1.0.0', 1]);
    const progress: number[] = [];
    registry.subscribe(() => progress.push(...registry.activeTransfers().map((t) => t.progress.percent)));
    const record = await registry.install(urls('1.0.0'));
    expect(record).toMatchObject({ key: 'demo@1.0.0', status: 'ready' });
    expect((await store.pointer('demo'))?.active).toBe('demo@1.0.0');
    expect(server.served.filter((s) => s.startsWith('demo/1.0.0/onnx/model.onnx'))).toHaveLength(3); // 10 000 bytes / 4096
    expect(server.wholeFiles).toEqual(['demo/1.0.0/config.json', 'demo/1.0.0/tokenizer.json']);
    expect(progress.at(-1)).toBe(100);
    const files = await new StoreModelSource(Promise.resolve(registry)).files('demo');
    expect(files.key).toBe('demo@1.0.0');
    expect(files.onnx.byteLength).toBe(10_000);
    expect(files.config).toMatchObject({ id2label: { 0: 'a', 1: 'b' } });
  });

  it('refuses a flipped bit and stores nothing of the bad chunk', async () => {
    const { registry, server, store, releases } = await setup(['1.0.0', 1]);
    server.misbehave = (path, range) => {
      if (path !== 'demo/1.0.0/onnx/model.onnx' || range?.[0] !== 4096) return undefined;
      const bytes = releases.get('1.0.0')!.files.get('onnx/model.onnx')!.slice(4096, 8192);
      bytes[10]! ^= 1;
      return new Response(bytes, { status: 206 });
    };
    await expect(registry.install(urls('1.0.0'))).rejects.toThrow(IntegrityError);
    expect(await store.pointer('demo')).toBeUndefined();
    expect(await store.hasChunk(releases.get('1.0.0')!.manifest.files[0]!.chunks[1]!)).toBe(false);
  });

  it('refuses an HTML page served with 200 instead of the file', async () => {
    const { registry, server, store } = await setup(['1.0.0', 1]);
    server.misbehave = (path) => (path.endsWith('.onnx')
      ? new Response('<!doctype html><title>Sign in</title>', { status: 200, headers: { 'Content-Type': 'text/html' } })
      : undefined);
    await expect(registry.install(urls('1.0.0'))).rejects.toThrow(/web page instead of onnx\/model.onnx/);
    expect(await store.chunkBytes()).toBe(0);
  });

  it('refuses an untrusted key, a missing signature and a manifest edited after signing', async () => {
    const { registry, server, releases } = await setup(['1.0.0', 1]);
    const release = releases.get('1.0.0')!;
    const stranger = await generateKey('stranger');
    server.add(release, { signatures: [await sign(release.bytes, stranger)] });
    // The refusal names who signed and whom the device trusts: what a publisher whose key is
    // missing from the trust store in use needs to see.
    await expect(registry.install(urls('1.0.0'))).rejects.toThrow(new RegExp(`^The release is not signed by a trusted publisher key: it is signed by ${stranger.keyId}, and this device trusts test publisher \\(ed25519:[0-9a-f]+\\)\\.$`));
    server.add(release, { signatures: [] });
    await expect(registry.install(urls('1.0.0'))).rejects.toThrow(SignatureError);
    const edited = { ...release, bytes: new TextEncoder().encode(new TextDecoder().decode(release.bytes).replace('"Demo"', '"Demx"')) };
    server.add(edited, release.signatures);
    await expect(registry.install(urls('1.0.0'))).rejects.toThrow(/altered after signing/);
    // Two signatures, one by a trusted key: accepted (key rotation).
    server.add(release, { signatures: [await sign(release.bytes, stranger), ...release.signatures.signatures] });
    await expect(registry.install(urls('1.0.0'))).resolves.toMatchObject({ status: 'ready' });
  });

  it('refuses a file whose size differs from the manifest (truncated on the server)', async () => {
    const { registry, server, releases } = await setup(['1.0.0', 1]);
    const full = releases.get('1.0.0')!.files.get('onnx/model.onnx')!;
    server.misbehave = (path, range) => {
      if (!path.endsWith('.onnx') || !range) return undefined;
      const cut = full.subarray(0, 6000);
      return new Response(cut.slice(range[0], range[1] + 1), { status: 206, headers: { 'Content-Range': `bytes ${range[0]}-${Math.min(range[1], 5999)}/6000` } });
    };
    await expect(registry.install(urls('1.0.0'))).rejects.toThrow(/not the size the signed manifest says/);
  });

  it('treats a 404 signature as unsigned', async () => {
    const { registry, server } = await setup(['1.0.0', 1]);
    server.misbehave = (path) => (path.endsWith('.sig.json') ? new Response('', { status: 404 }) : undefined);
    await expect(registry.install(urls('1.0.0'))).rejects.toThrow('The release is not signed.');
  });

  it('refuses a replayed older manifest while the active version keeps working', async () => {
    const { registry, store } = await setup(['1.0.0', 1], ['2.0.0', 2]);
    await registry.install(urls('2.0.0'));
    await expect(registry.install(urls('1.0.0'))).rejects.toThrow(DowngradeError);
    expect((await store.pointer('demo'))?.active).toBe('demo@2.0.0');
  });

  it('refuses a catalog entry that does not match its manifest', async () => {
    const { registry } = await setup(['1.0.0', 1]);
    await expect(registry.install({ ...urls('1.0.0'), id: 'demo', version: '1.0.0', sequence: 99 })).rejects.toThrow(ValidationError);
  });

  it('only fetches from allowed origins', async () => {
    const { registry } = await setup(['1.0.0', 1]);
    await expect(registry.install({ manifestUrl: 'https://evil.example/m.json', signatureUrl: 'https://evil.example/s.json' })).rejects.toThrow(NetworkError);
  });

  it('a second install of a model already installing is busy, not a second download of the same bytes', async () => {
    const { registry, server, store } = await setup(['1.0.0', 1]);
    // Whichever verifies its manifest first claims the model; the other is refused as busy.
    const outcomes = await Promise.allSettled([registry.install(urls('1.0.0')), registry.install(urls('1.0.0'))]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const refused = outcomes.filter((o) => o.status === 'rejected').map((o) => o.reason as unknown);
    expect(refused).toHaveLength(1);
    expect(refused[0]).toBeInstanceOf(BusyError);
    // 10,000 bytes in chunks of 4,096: three range requests, once.
    expect(server.served.filter((path) => path.includes('model.onnx'))).toHaveLength(3);
    expect((await store.pointer('demo'))?.active).toBe('demo@1.0.0');
    expect(registry.activeTransfers()).toEqual([]);
  });

  it('a second install in shadow is busy too, though deciding where an install goes reads the store first', async () => {
    const { registry, server, store } = await setup(['1.0.0', 1], ['1.1.0', 2]);
    await registry.install(urls('1.0.0'));
    const outcomes = await Promise.allSettled([registry.install(urls('1.1.0'), undefined, 'shadow'), registry.install(urls('1.1.0'), undefined, 'shadow')]);
    // Either may claim the model first (each fetches and verifies its manifest before it does): one installs, the other is busy.
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? 'installed' : o.reason instanceof BusyError ? 'busy' : 'failed')).sort()).toEqual(['busy', 'installed']);
    expect(server.served.filter((path) => path.startsWith('demo/1.1.0/onnx'))).toHaveLength(3);
    expect(await store.pointer('demo')).toMatchObject({ active: 'demo@1.0.0', shadow: 'demo@1.1.0' });
    expect(registry.activeTransfers()).toEqual([]);
  });

  it('stops before downloading when the quota is too small, touching nothing', async () => {
    const { store, server } = await setup(['1.0.0', 1]);
    let persisted = false;
    const registry = registryFor(store, server, { estimate: async () => ({ usage: 1000, quota: 5000 }), persist: async () => (persisted = true) });
    await expect(registry.install(urls('1.0.0'))).rejects.toThrow(QuotaError);
    expect(server.served).toHaveLength(0);
    expect(persisted).toBe(true);
  });
});

describe('persistent storage', () => {
  /** A StorageManager whose browser grants persistence only when `grants` says so. */
  function storageThat(grants: () => boolean): StorageManagerLike & { asked: number } {
    let persisted = false;
    return {
      asked: 0,
      estimate: async () => ({ usage: 10, quota: 1e9 }),
      persisted: async () => persisted,
      async persist() {
        this.asked++;
        persisted ||= grants();
        return persisted;
      },
    };
  }

  it('reports whether the browser keeps the models, and asks again when told to', async () => {
    const { store, server } = await setup(['1.0.0', 1]);
    let grant = false;
    const storage = storageThat(() => grant);
    const registry = registryFor(store, server, storage);
    await registry.install(urls('1.0.0'));
    expect(storage.asked).toBe(1);
    const before = await registry.storageEstimate();
    expect(before).toMatchObject({ persisted: false, usage: 10, quota: 1e9 });
    expect(before.modelBytes).toBeGreaterThan(0);
    await expect(registry.requestPersistentStorage()).resolves.toBe(false);
    grant = true;
    await expect(registry.requestPersistentStorage()).resolves.toBe(true);
    expect((await registry.storageEstimate()).persisted).toBe(true);
    expect(storage.asked).toBe(3);
  });

  it('says nothing of persistence where the browser cannot, and a failing request is a refusal', async () => {
    const { store, server } = await setup(['1.0.0', 1]);
    const registry = registryFor(store, server, { estimate: async () => ({}), persist: () => Promise.reject(new Error('denied')) });
    expect(await registry.storageEstimate()).not.toHaveProperty('persisted');
    await expect(registry.requestPersistentStorage()).resolves.toBe(false);
    await registry.install(urls('1.0.0'));
    expect((await registry.overview()).find((m) => m.id === 'demo')?.pointer).toBeDefined();
  });
});

describe('resume', () => {
  it('retries a dropped connection and never refetches a verified chunk', async () => {
    const { registry, server } = await setup(['1.0.0', 1]);
    let drops = 0;
    server.misbehave = (path, range) => (path.endsWith('.onnx') && range?.[0] === 8192 && drops++ < 2 ? 'drop' : undefined);
    await registry.install(urls('1.0.0'));
    expect(drops).toBe(3);
    expect(new Set(server.served).size).toBe(server.served.length);
  });

  it('after giving up (closed tab, dead link) a later resume continues from the last verified chunk', async () => {
    const { registry, server, store } = await setup(['1.0.0', 1]);
    server.misbehave = (path, range) => (path.endsWith('.onnx') && range?.[0] === 8192 ? 'drop' : undefined);
    await expect(registry.install(urls('1.0.0'))).rejects.toThrow(/after 3 attempts/);
    expect((await store.version('demo@1.0.0'))?.status).toBe('downloading');
    const before = [...server.served];
    server.misbehave = undefined;
    // A new registry, as after reopening the tab.
    await registryFor(store, server).resume('demo@1.0.0');
    const after = server.served.slice(before.length);
    expect(after).toEqual(['demo/1.0.0/onnx/model.onnx:8192', 'demo/1.0.0/config.json:0', 'demo/1.0.0/tokenizer.json:0']);
    expect((await store.pointer('demo'))?.active).toBe('demo@1.0.0');
  });
});

/**
 * This window and another one of the app: each its own connection to the same database, its own
 * registry, one localStorage; `later` opens one more window of it.
 */
async function twoWindows(...versions: [string, number][]) {
  const { store, server } = await setup(...versions);
  const localStorage = memoryStorage();
  const later = async () => registryFor(await ModelStore.open(store.name), server, undefined, localStorage);
  return { store, localStorage, later, here: registryFor(store, server, undefined, localStorage), there: await later() };
}

describe('another tab or window of the app on the same store', () => {
  it('hears of every change made there, and its source says the active version changed', async () => {
    const { here, there } = await twoWindows(['1.0.0', 1], ['1.1.0', 2]);
    await there.install(urls('1.0.0'));
    const source = new StoreModelSource(Promise.resolve(here));
    expect((await source.describe('demo')).version).toBe('1.0.0');
    let told = 0;
    source.subscribe(() => told++);
    await there.install(urls('1.1.0'));
    await vi.waitFor(() => expect(told).toBeGreaterThan(0));
    expect((await source.describe('demo')).version).toBe('1.1.0');
    const before = told;
    await there.rollback('demo', 'demo@1.0.0');
    await vi.waitFor(() => expect(told).toBeGreaterThan(before));
    expect((await source.describe('demo')).version).toBe('1.0.0');
  });

  it('tells its user what happened there to the version both answer with, and reads an older build\'s bare message as a store change', async () => {
    const { store, here, there } = await twoWindows(['1.0.0', 1], ['1.1.0', 2]);
    await there.install(urls('1.0.0'));
    await there.install(urls('1.1.0'));
    const source = new StoreModelSource(Promise.resolve(here));
    expect((await source.describe('demo')).version).toBe('1.1.0');

    // 1.1.0 failed too often in real use there: here it stops answering too, and its user is told why.
    await there.rollBackAutomatically('demo@1.1.0', 'it failed 5 of its last 10 requests');
    const notice = { kind: 'rolled-back', id: 'demo', version: '1.1.0', fallbackVersion: '1.0.0', reason: 'it failed 5 of its last 10 requests' };
    expect(there.notices).toEqual([notice]);
    await vi.waitFor(() => expect(here.notices).toEqual([notice]));
    expect((await source.describe('demo')).version).toBe('1.0.0');

    // An older build of the app, still open beside this one, posts what it always did.
    let told = 0;
    here.subscribe(() => told++);
    const olderBuild = new BroadcastChannel(`lantern-store:${store.name}`);
    olderBuild.postMessage(null);
    olderBuild.postMessage('store');
    await vi.waitFor(() => expect(told).toBe(2));
    olderBuild.close();
    expect(here.notices).toEqual([notice]);
  });

  it('dismisses a notice in every window its user dismissed it in one, and keeps the others', async () => {
    const { store, here, there } = await twoWindows(['1.0.0', 1], ['1.1.0', 2]);
    await there.install(urls('1.0.0'));
    await there.install(urls('1.1.0'));
    await there.rollBackAutomatically('demo@1.1.0', 'it failed 5 of its last 10 requests');
    await vi.waitFor(() => expect(here.notices).toHaveLength(1));
    const rolledBack = here.notices[0]!;
    // Other news, from a third window: not this dismissal's to drop.
    const other = { kind: 'quarantined' as const, id: 'other', version: '2.0.0' };
    const third = new BroadcastChannel(`lantern-store:${store.name}`);
    third.postMessage({ trust: false, notices: [other], dismissed: [] });
    third.close();
    await vi.waitFor(() => expect(there.notices).toHaveLength(2));
    await vi.waitFor(() => expect(here.notices).toHaveLength(2));

    here.dismissNotice(rolledBack);
    expect(here.notices).toEqual([other]);
    await vi.waitFor(() => expect(there.notices).toEqual([other]));
  });

  it('tells a window opened after the change, or the app reopened, what its user has not dismissed yet', async () => {
    const { here, there, later } = await twoWindows(['1.0.0', 1], ['1.1.0', 2]);
    await there.install(urls('1.0.0'));
    await there.install(urls('1.1.0'));
    await there.rollBackAutomatically('demo@1.1.0', 'it failed 5 of its last 10 requests');
    const notice = { kind: 'rolled-back', id: 'demo', version: '1.1.0', fallbackVersion: '1.0.0', reason: 'it failed 5 of its last 10 requests' };
    expect((await later()).notices).toEqual([notice]);

    await vi.waitFor(() => expect(here.notices).toEqual([notice]));
    here.dismissNotice(here.notices[0]!);
    expect((await later()).notices).toEqual([]);
  });

  it('keeps the newest 20 notices, the same news once, and reads damaged or foreign kept data as none', async () => {
    const { store, server } = await setup();
    const localStorage = memoryStorage();
    const window = registryFor(store, server, undefined, localStorage);
    const third = new BroadcastChannel(`lantern-store:${store.name}`);
    const quarantined = (version: string) => ({ kind: 'quarantined', id: 'demo', version });
    for (let i = 1; i <= 25; i++) third.postMessage({ trust: false, notices: [quarantined(`1.0.${i}`)], dismissed: [] });
    third.postMessage({ trust: false, notices: [quarantined('1.0.6')], dismissed: [] });
    third.close();
    await vi.waitFor(() => expect(window.notices.at(-1)?.version).toBe('1.0.6'));
    expect(window.notices.map((n) => n.version)).toEqual([...Array.from({ length: 19 }, (_, i) => `1.0.${i + 7}`), '1.0.6']);
    // A window keeps what it made itself: news told by another is that window's to keep.
    expect(localStorage.data.size).toBe(0);
    window.dismissNotice(window.notices.at(-1)!);
    expect(JSON.parse(localStorage.data.get(`lantern.notices:${store.name}`)!).map((n: { version: string }) => n.version)).toEqual(Array.from({ length: 19 }, (_, i) => `1.0.${i + 7}`));

    for (const damaged of ['{not json', '[{"kind":"exploded","id":"demo","version":"1"}]', '{"kind":"revoked"}']) {
      const reopened = registryFor(store, server, undefined, memoryStorage({ [`lantern.notices:${store.name}`]: damaged }));
      expect(reopened.notices).toEqual([]);
    }
  });

  it('is not told of a download\'s progress, and neither is the runtime here: a tick per chunk changes nothing they read', async () => {
    const { here, there } = await twoWindows(['1.0.0', 1]);
    const toldHere: string[] = [];
    const toldThere: string[] = [];
    let runtimeTold = 0;
    here.subscribe((change) => toldHere.push(change));
    there.subscribe((change) => toldThere.push(change));
    new StoreModelSource(Promise.resolve(here)).subscribe(() => runtimeTold++);

    await here.install(urls('1.0.0'));
    await vi.waitFor(() => expect(toldThere.length).toBeGreaterThan(0));
    // The 10,000-byte model in chunks of 4,096: the progress bar here hears each one.
    expect(toldHere.filter((change) => change === 'progress').length).toBeGreaterThanOrEqual(3);
    const storeChanges = toldHere.filter((change) => change === 'store').length;
    expect(runtimeTold).toBe(storeChanges);
    await vi.waitFor(() => expect(toldThere).toEqual(Array(storeChanges).fill('store')));
  });
});

describe('sideloaded bundles', () => {
  const bundleOf = (r: TestRelease, signatures = r.signatures) =>
    new Blob([writeBundle(r.bytes, signatures, [...r.files].map(([path, bytes]) => ({ path, bytes })))]);

  it('installs offline with the same verification', async () => {
    const { registry, store, releases } = await setup(['1.0.0', 1]);
    const offline = registryFor(store, Object.assign(new FakeServer(), { misbehave: () => 'drop' as const }));
    await offline.installBundle(bundleOf(releases.get('1.0.0')!));
    expect((await store.pointer('demo'))?.active).toBe('demo@1.0.0');
    expect((await new StoreModelSource(Promise.resolve(registry)).files('demo')).onnx.byteLength).toBe(10_000);
  });

  it('rejects a tampered bundle, an untrusted one, and a file that is not a bundle', async () => {
    const { registry, store, releases } = await setup(['1.0.0', 1]);
    const release = releases.get('1.0.0')!;
    const raw = new Uint8Array(await bundleOf(release).arrayBuffer());
    raw[raw.length - 3000]! ^= 0x80;
    await expect(registry.installBundle(new Blob([raw]))).rejects.toThrow(IntegrityError);
    await expect(registry.installBundle(bundleOf(release, { signatures: [await sign(release.bytes, await generateKey('x'))] }))).rejects.toThrow(SignatureError);
    await expect(registry.installBundle(new Blob(['<html>nope</html>']))).rejects.toThrow('That file is not a Lantern model bundle.');
    expect(await store.pointer('demo')).toBeUndefined();
  });
});

describe('re-verification on load', () => {
  it('quarantines a corrupted active version, falls back, and tells the user', async () => {
    const { registry, store, releases } = await setup(['1.0.0', 1], ['1.1.0', 2]);
    await registry.install(urls('1.0.0'));
    await registry.install(urls('1.1.0'));
    const sha = releases.get('1.1.0')!.manifest.files[0]!.chunks[0]!;
    const bytes = new Uint8Array((await store.getChunk(sha))!);
    bytes[0]! ^= 1;
    await store.putChunk(sha, bytes.buffer);
    const source = new StoreModelSource(Promise.resolve(registry));
    const error = await source.files('demo').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IntegrityError);
    expect((error as IntegrityError).details.fallback).toBe('1.0.0');
    expect(registry.notices).toEqual([{ kind: 'quarantined', id: 'demo', version: '1.1.0', fallbackVersion: '1.0.0' }]);
    expect((await source.files('demo')).key).toBe('demo@1.0.0');
    expect((await source.describe('demo')).version).toBe('1.0.0');
    expect(await store.hasChunk(sha)).toBe(false);
  });
});

describe('built-in models and the data policy', () => {
  it('installs a first built-in regardless, but an update only when automatic downloads are allowed', async () => {
    const { store, server, releases } = await setup(['1.0.0', 1], ['1.1.0', 2]);
    let previousVersion: number | undefined;
    const list = async (...versions: string[]) => {
      const entries = versions.map((v) => {
        const r = releases.get(v)!;
        return { id: r.manifest.id, version: v, sequence: r.manifest.sequence, manifest: urls(v).manifestUrl, signature: urls(v).signatureUrl, size: totalSize(r.manifest) };
      });
      const { catalog, signature } = await signedCatalog(entries, { keys: [key], ...(previousVersion !== undefined ? { previousVersion } : {}) });
      previousVersion = parseCatalog(catalog).version;
      server.put('catalog.json', catalog);
      server.put('catalog.sig.json', signature);
    };
    const registry = registryFor(store, server);
    const builtins = (allow: boolean) => installBuiltins(registry, `${ORIGIN}/catalog.json`, () => allow);
    await list('1.0.0');
    expect(await builtins(false)).toEqual([]);
    expect((await store.pointer('demo'))?.active).toContain('1.0.0');
    await list('1.0.0', '1.1.0');
    expect(await builtins(false)).toEqual([]);
    expect((await store.pointer('demo'))?.active).toContain('1.0.0');
    expect(await builtins(true)).toEqual([]);
    expect((await store.pointer('demo'))?.active).toContain('1.1.0');
  });
});
