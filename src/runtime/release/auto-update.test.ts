import 'fake-indexeddb/auto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Release } from '../store/catalog.ts';
import { totalSize } from '../store/manifest.ts';
import { OriginPolicy } from '../store/net.ts';
import { ModelRegistry } from '../store/registry.ts';
import { FakeServer, freshStore, keyAndTrust, makeRelease, ORIGIN, urls } from '../store/test-helpers.ts';
import { TrustStore, trustEntryFor, type KeyFile } from '../store/trust.ts';
import { signedCatalog } from '../../../scripts/model-pack/release.ts';
import { DowngradeError } from '../errors.ts';
import { autoUpdate, installRolledOut, isUpdate, updatesFor } from './auto-update.ts';

let key: KeyFile;
let trust: TrustStore;
beforeAll(async () => ({ key, trust } = await keyAndTrust()));

/** Total size of the files makeRelease signs (the catalog must state the signed size). */
let releaseSize = 0;
const entry = (version: string, sequence: number, rollout?: number): Release => ({
  id: 'demo', version, sequence, manifest: '', signature: '', size: releaseSize,
  ...urls(version),
  ...(rollout !== undefined ? { rollout } : {}),
});

async function setup() {
  const store = await freshStore();
  const server = new FakeServer();
  for (const [version, sequence] of [['1.0.0', 1], ['1.1.0', 2]] as const) {
    const release = await makeRelease(key, { version, sequence });
    releaseSize = totalSize(release.manifest);
    server.add(release);
  }
  const registry = new ModelRegistry({ store, trust, policy: new OriginPolicy(ORIGIN), fetch: server.fetch, backoffMs: 1, retries: 2 });
  return { store, registry, server };
}

const bucket = (b: number) => () => Promise.resolve(b);

describe('automatic staged updates', () => {
  /** A world with demo 1.0.0 installed and a catalog, signed by the key, rolling 1.1.0 out to every device. */
  async function rollingOut() {
    const world = await setup();
    await world.registry.install(entry('1.0.0', 1));
    const { catalog, signature } = await signedCatalog([{ ...entry('1.1.0', 2, 1), manifest: 'demo/1.1.0/manifest.json', signature: 'demo/1.1.0/manifest.sig.json' }], { keys: [key] });
    world.server.put('catalog.json', catalog);
    world.server.put('catalog.sig.json', signature);
    return { ...world, catalogs: [`${ORIGIN}/catalog.json`] };
  }

  it('fetches the trust store again before the catalogs: a key revoked since the app started installs nothing more', async () => {
    const { registry, store, catalogs } = await rollingOut();
    // The deployment narrowed the key to another model (a revocation for demo) while the app stayed open.
    const narrowed = new TrustStore({ keys: [trustEntryFor(key, ['other'])] });
    // The catalog that key signed is no longer read (left out like any catalog that cannot be): nothing to install.
    expect(await autoUpdate({ registry, refreshTrust: () => registry.applyTrust(narrowed) }, catalogs, bucket(0), () => true)).toEqual([]);
    expect(await store.version('demo@1.1.0')).toBeUndefined();
    expect((await store.version('demo@1.0.0'))?.status).toBe('revoked');
  });

  it('goes on with the trust store in use when the served one is refused, and returns the refusal', async () => {
    const { registry, store, catalogs } = await rollingOut();
    const refusal = new DowngradeError('trust-store.json is older than the one this device accepted.');
    expect(await autoUpdate({ registry, refreshTrust: () => Promise.reject(refusal) }, catalogs, bucket(0), () => true)).toEqual([refusal]);
    expect((await store.pointer('demo'))?.active).toBe('demo@1.1.0');
  });

  it('install a release whose rollout reaches this device', async () => {
    const { registry, store } = await setup();
    await registry.install(entry('1.0.0', 1));
    expect(await installRolledOut(registry, [entry('1.1.0', 2, 0.5)], bucket(0.2), () => true)).toEqual([]);
    expect((await store.pointer('demo'))?.active).toBe('demo@1.1.0');
  });

  it('leave alone a release whose rollout does not reach it yet, and say so', async () => {
    const { registry, store } = await setup();
    await registry.install(entry('1.0.0', 1));
    await installRolledOut(registry, [entry('1.1.0', 2, 0.1)], bucket(0.2), () => true);
    expect((await store.pointer('demo'))?.active).toBe('demo@1.0.0');
    expect((await updatesFor(registry, [entry('1.1.0', 2, 0.1)], bucket(0.2))).notYet.map((r) => r.version)).toEqual(['1.1.0']);
  });

  it('never install a release without a fraction, a model that is not installed, or without the data policy\'s consent', async () => {
    const { registry, store } = await setup();
    await installRolledOut(registry, [entry('1.0.0', 1, 1)], bucket(0), () => true);
    expect(await store.pointer('demo')).toBeUndefined();
    await registry.install(entry('1.0.0', 1));
    await installRolledOut(registry, [entry('1.1.0', 2)], bucket(0), () => true);
    await installRolledOut(registry, [entry('1.1.0', 2, 1)], bucket(0), () => false);
    expect((await store.pointer('demo'))?.active).toBe('demo@1.0.0');
  });

  it('a later catalog with a larger fraction reaches the device', async () => {
    const { registry, store } = await setup();
    await registry.install(entry('1.0.0', 1));
    await installRolledOut(registry, [entry('1.1.0', 2, 0.1)], bucket(0.3), () => true);
    expect((await store.pointer('demo'))?.active).toBe('demo@1.0.0');
    await installRolledOut(registry, [entry('1.1.0', 2, 0.5)], bucket(0.3), () => true);
    expect((await store.pointer('demo'))?.active).toBe('demo@1.1.0');
  });

  it('a canary of a newer release does not hold back an older one this device is in the rollout of', async () => {
    const { registry, store, server } = await setup();
    const canary = await makeRelease(key, { version: '1.2.0', sequence: 3 });
    server.add(canary);
    await registry.install(entry('1.0.0', 1));
    // The publisher's usual catalog: the previous release to everyone, the new one to 10%.
    const catalog = [entry('1.1.0', 2, 1), { ...entry('1.2.0', 3, 0.1), size: totalSize(canary.manifest) }];
    const { now, notYet } = await updatesFor(registry, catalog, bucket(0.5));
    expect(now.map((r) => r.version)).toEqual(['1.1.0']);
    expect(notYet.map((r) => r.version)).toEqual(['1.2.0']);
    await installRolledOut(registry, catalog, bucket(0.5), () => true);
    expect((await store.pointer('demo'))?.active).toBe('demo@1.1.0');
    // A device inside the canary takes the newest one directly.
    await installRolledOut(registry, catalog, bucket(0.05), () => true);
    expect((await store.pointer('demo'))?.active).toBe('demo@1.2.0');
  });

  it('a release the device refused is not downloaded again at the next start, nor after other activations collected garbage', async () => {
    const store = await freshStore();
    const server = new FakeServer();
    const v1 = await makeRelease(key, { version: '1.0.0', sequence: 1 });
    const gated = await makeRelease(key, { version: '1.1.0', sequence: 2, validation: { threshold: 1, items: [{ input: { kind: 'text', text: 'golden' }, label: 'a' }] } });
    const other = await makeRelease(key, { id: 'other', version: '1.0.0', sequence: 1 });
    for (const r of [v1, gated, other]) server.add(r);
    const registry = new ModelRegistry({
      store, trust: new TrustStore({ keys: [trustEntryFor(key, ['demo', 'other'])] }), policy: new OriginPolicy(ORIGIN), fetch: server.fetch, backoffMs: 1, retries: 2,
      validate: async () => ({ total: 1, correct: 0, failed: 0 }),
    });
    await registry.install(entry('1.0.0', 1));
    const update = { ...entry('1.1.0', 2, 1), size: totalSize(gated.manifest) };
    const [refusal] = await installRolledOut(registry, [update], bucket(0), () => true);
    expect(refusal?.code).toBe('VALIDATION');
    expect((await store.version('demo@1.1.0'))?.status).toBe('rejected');
    const served = server.served.length;
    expect(await installRolledOut(registry, [update], bucket(0), () => true)).toEqual([]);
    expect(server.served.length).toBe(served);
    // Another model's activation collects garbage across the store: the refusal is still remembered,
    // its bytes are not kept.
    await registry.install(urls('1.0.0', 'other'));
    expect((await store.version('demo@1.1.0'))?.status).toBe('rejected');
    const shared = new Set([v1, other].flatMap((r) => r.manifest.files.flatMap((f) => f.chunks)));
    const its = gated.manifest.files.flatMap((f) => f.chunks).filter((sha) => !shared.has(sha));
    expect(its.length).toBeGreaterThan(0);
    expect(await Promise.all(its.map((sha) => store.hasChunk(sha)))).not.toContain(true);
    const servedBefore = server.served.length;
    expect(await installRolledOut(registry, [update], bucket(0), () => true)).toEqual([]);
    expect(server.served.length).toBe(servedBefore);
    expect((await store.pointer('demo'))?.active).toBe('demo@1.0.0');
  });

  it('isUpdate: newer than anything activated, not the candidate in shadow, not a release this device refused', () => {
    const release = entry('1.1.0', 2, 1);
    const version = (status: 'ready' | 'rejected') => ({ key: 'demo@1.1.0', id: 'demo', version: '1.1.0', sequence: 2, status, sizeBytes: 1, addedAt: 0 });
    const model = { pointer: { id: 'demo', active: 'demo@1.0.0' }, highestSequence: 1, versions: [] };
    expect(isUpdate(release, model)).toBe(true);
    expect(isUpdate(release, { ...model, highestSequence: 2 })).toBe(false);
    expect(isUpdate(release, { ...model, pointer: { ...model.pointer, shadow: 'demo@1.1.0' } })).toBe(false);
    expect(isUpdate(release, { ...model, versions: [version('rejected')] })).toBe(false);
    // A model with no working version left (all revoked) is still offered the update.
    expect(isUpdate(release, { highestSequence: 1, versions: [] })).toBe(true);
  });
});

