import 'fake-indexeddb/auto';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { CancelledError, LanternError, ValidationError } from '../errors.ts';
import { OriginPolicy } from './net.ts';
import { ModelRegistry } from './registry.ts';
import { freshStore, keyAndTrust, ORIGIN, publishedRegistry, urls } from './test-helpers.ts';
import type { KeyFile, TrustStore } from './trust.ts';
import type { PackInput } from './manifest.ts';
import type { ModelStore } from './model-store.ts';

let key: KeyFile;
let trust: TrustStore;
beforeAll(async () => ({ key, trust } = await keyAndTrust()));

const setup = (...versions: (Partial<PackInput> & { version: string; sequence: number })[]) => publishedRegistry(key, trust, ...versions);

/** Another registry over `store` (a reopened tab), fetching through `fetch`: the test server's, or a wrapper of it. */
const registryOver = (store: ModelStore, fetch: typeof globalThis.fetch) => new ModelRegistry({ store, trust, policy: new OriginPolicy(ORIGIN), fetch, backoffMs: 1, retries: 2 });

/** Whether a request asks for the second chunk (from byte 4096) of `version`'s model file. */
const secondModelChunk = (version: string, input: RequestInfo | URL, init?: RequestInit): boolean =>
  String(input).endsWith(`/${version}/onnx/model.onnx`) && new Headers(init?.headers).get('Range')?.startsWith('bytes=4096-') === true;

describe('ModelRegistry shadow installs', () => {
  it('installs a release in shadow on request: the active version keeps answering', async () => {
    const { registry, store } = await setup({ version: '1.0.0', sequence: 1 }, { version: '1.1.0', sequence: 2 });
    await registry.install(urls('1.0.0'));
    await registry.install(urls('1.1.0'), undefined, 'shadow');
    expect(await store.pointer('demo')).toEqual({ id: 'demo', active: 'demo@1.0.0', shadow: 'demo@1.1.0' });
    expect((await registry.activeManifest('demo'))?.manifest.version).toBe('1.0.0');
    const candidate = await registry.readCandidate('demo');
    expect(candidate?.manifest.version).toBe('1.1.0');
    expect(candidate?.read.files.get('onnx')?.byteLength).toBe(10_000);
  });

  it('follows the signed manifest\'s shadow policy when the caller does not choose', async () => {
    const { registry, store } = await setup({ version: '1.0.0', sequence: 1 }, { version: '1.1.0', sequence: 2, shadow: { minRuns: 50, minAgreement: 0.95 } });
    await registry.install(urls('1.0.0'));
    await registry.install(urls('1.1.0'));
    expect((await store.pointer('demo'))?.shadow).toBe('demo@1.1.0');
  });

  it('activates a first install even when shadow is asked: there is nothing to compare with', async () => {
    const { registry, store } = await setup({ version: '1.0.0', sequence: 1, shadow: { minRuns: 5, minAgreement: 1 } });
    await registry.install(urls('1.0.0'), undefined, 'shadow');
    expect(await store.pointer('demo')).toEqual({ id: 'demo', active: 'demo@1.0.0' });
  });

  it('promotes and rejects candidates', async () => {
    const { registry, store } = await setup({ version: '1.0.0', sequence: 1 }, { version: '1.1.0', sequence: 2 }, { version: '1.2.0', sequence: 3 });
    await registry.install(urls('1.0.0'));
    await registry.install(urls('1.1.0'), undefined, 'shadow');
    await registry.promote('demo@1.1.0');
    expect(await store.pointer('demo')).toEqual({ id: 'demo', active: 'demo@1.1.0', previous: 'demo@1.0.0' });
    await registry.install(urls('1.2.0'), undefined, 'shadow');
    await registry.rejectCandidate('demo@1.2.0', 'rejected by the user after 3 shadow runs');
    expect(await store.pointer('demo')).toEqual({ id: 'demo', active: 'demo@1.1.0', previous: 'demo@1.0.0' });
    expect((await store.version('demo@1.2.0'))?.status).toBe('rejected');
    expect(await registry.readCandidate('demo')).toBeUndefined();
  });

  it('an interrupted shadow install resumes into shadow, not as an activation, even in a new registry', async () => {
    const { registry, store, server } = await setup({ version: '1.0.0', sequence: 1 }, { version: '1.1.0', sequence: 2 });
    await registry.install(urls('1.0.0'));
    server.misbehave = (path, range) => (path === 'demo/1.1.0/onnx/model.onnx' && range?.[0] === 8192 ? 'drop' : undefined);
    await expect(registry.install(urls('1.1.0'), undefined, 'shadow')).rejects.toThrow(/after 3 attempts/);
    expect((await store.version('demo@1.1.0'))?.status).toBe('downloading');
    server.misbehave = undefined;
    // As after reopening the tab: only the store remembers what was asked.
    const reopened = registryOver(store, server.fetch);
    await reopened.resume('demo@1.1.0');
    expect(await store.pointer('demo')).toEqual({ id: 'demo', active: 'demo@1.0.0', shadow: 'demo@1.1.0' });
  });

  it('an interrupted shadow install resumed after the active version changed labels is refused; the active version still answers', async () => {
    const { registry, store, server } = await setup({ version: '1.0.0', sequence: 1, labels: ['ham', 'spam'] }, { version: '1.1.0', sequence: 2, labels: ['ham', 'spam'] }, { version: '1.2.0', sequence: 3, labels: ['ham', 'spam', 'promo'] });
    await registry.install(urls('1.0.0'));
    server.misbehave = (path, range) => (path === 'demo/1.1.0/onnx/model.onnx' && range?.[0] === 8192 ? 'drop' : undefined);
    await expect(registry.install(urls('1.1.0'), undefined, 'shadow')).rejects.toThrow(/after 3 attempts/);
    server.misbehave = undefined;
    await registry.install(urls('1.2.0'));
    const refused = await registry.resume('demo@1.1.0').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(LanternError);
    expect(await store.pointer('demo')).toEqual({ id: 'demo', active: 'demo@1.2.0', previous: 'demo@1.0.0' });
    expect((await registry.readActive('demo')).manifest.version).toBe('1.2.0');
  });

  it('an interrupted install that chose activation over its manifest\'s shadow request resumes as an activation', async () => {
    const { registry, store, server } = await setup({ version: '1.0.0', sequence: 1 }, { version: '1.1.0', sequence: 2, shadow: { minRuns: 5, minAgreement: 0.9 } });
    await registry.install(urls('1.0.0'));
    server.misbehave = (path, range) => (path === 'demo/1.1.0/onnx/model.onnx' && range?.[0] === 8192 ? 'drop' : undefined);
    await expect(registry.install(urls('1.1.0'), undefined, 'activate')).rejects.toThrow(/after 3 attempts/);
    server.misbehave = undefined;
    await registry.resume('demo@1.1.0');
    expect(await store.pointer('demo')).toEqual({ id: 'demo', active: 'demo@1.1.0', previous: 'demo@1.0.0' });
  });

  it('quarantines a candidate whose stored bytes changed, with a notice, and keeps the active version', async () => {
    const { registry, store } = await setup({ version: '1.0.0', sequence: 1 }, { version: '1.1.0', sequence: 2, chunkSize: 4096 });
    await registry.install(urls('1.0.0'));
    await registry.install(urls('1.1.0'), undefined, 'shadow');
    const manifest = (await registry.readCandidate('demo'))!.manifest;
    const sha = manifest.files.find((f) => f.role === 'onnx')!.chunks[0]!;
    await store.putChunk(sha, new Uint8Array(4096).buffer);
    expect(await registry.readCandidate('demo')).toBeUndefined();
    expect(registry.notices).toEqual([{ kind: 'quarantined', id: 'demo', version: '1.1.0' }]);
    expect(await store.pointer('demo')).toEqual({ id: 'demo', active: 'demo@1.0.0' });
  });
});

describe('ModelRegistry shadow installs of a release with other labels (their answers cannot be compared)', () => {
  const bar = { minRuns: 5, minAgreement: 0.9 };

  it('refuses a requested shadow install before downloading anything; an ordinary update still installs it', async () => {
    const { registry, store, server } = await setup({ version: '1.0.0', sequence: 1, labels: ['ham', 'spam'] }, { version: '1.1.0', sequence: 2, labels: ['ham', 'spam', 'promo'] });
    await registry.install(urls('1.0.0'));
    const before = server.served.length;
    const refused = await registry.install(urls('1.1.0'), undefined, 'shadow').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ValidationError);
    expect((refused as ValidationError).details).toEqual({ reason: 'shadow-labels', id: 'demo', version: '1.1.0', active: '1.0.0' });
    expect(server.served.length).toBe(before);
    expect(await store.version('demo@1.1.0')).toBeUndefined();
    expect(await store.pointer('demo')).toEqual({ id: 'demo', active: 'demo@1.0.0' });
    await registry.install(urls('1.1.0'));
    expect(await store.pointer('demo')).toEqual({ id: 'demo', active: 'demo@1.1.0', previous: 'demo@1.0.0' });
  });

  it('activates a release whose manifest asks for shadow as an ordinary update, and says it was not evaluated in shadow', async () => {
    const { registry, store } = await setup({ version: '1.0.0', sequence: 1, labels: ['ham', 'spam'] }, { version: '1.1.0', sequence: 2, labels: ['ham', 'junk'], shadow: bar });
    await registry.install(urls('1.0.0'));
    await registry.install(urls('1.1.0'));
    expect(await store.pointer('demo')).toEqual({ id: 'demo', active: 'demo@1.1.0', previous: 'demo@1.0.0' });
    expect(registry.notices).toEqual([{ kind: 'not-shadowed', id: 'demo', version: '1.1.0' }]);
  });

  /**
   * 1.0.0 speaks other labels than 1.1.0, active, and 1.2.0, being installed in shadow (3 chunks
   * of model): when the model's second chunk is asked for, 1.1.0 is rolled back to 1.0.0; a
   * shadow install its caller asked for (`mode`) is answered only once it has been told to stop.
   */
  async function rolledBackMidDownload(candidate: Partial<PackInput>, mode?: 'shadow') {
    const { store, server } = await setup({ version: '1.0.0', sequence: 1, labels: ['ham', 'spam', 'promo'] }, { version: '1.1.0', sequence: 2, labels: ['ham', 'spam'] }, { version: '1.2.0', sequence: 3, labels: ['ham', 'spam'], ...candidate });
    const registry: ModelRegistry = registryOver(store, async (input, init) => {
      if (secondModelChunk('1.2.0', input, init)) {
        await registry.rollback('demo', 'demo@1.0.0');
        if (mode === 'shadow') {
          await vi.waitFor(() => expect(init?.signal?.aborted).toBe(true));
          throw new DOMException('The download was stopped.', 'AbortError');
        }
      }
      return server.fetch(input, init);
    });
    await registry.install(urls('1.0.0'));
    await registry.install(urls('1.1.0'));
    const outcome = await registry.install(urls('1.2.0'), undefined, mode).catch((e: unknown) => e);
    return { store, server, registry, outcome, served: server.served.filter((s) => s.startsWith('demo/1.2.0/onnx/')) };
  }

  it('stops a requested shadow install whose active version is rolled back to other labels mid-download: no more bytes, the rolled-back-to version answers', async () => {
    const { registry, store, outcome, served } = await rolledBackMidDownload({}, 'shadow');
    expect(outcome).toBeInstanceOf(ValidationError);
    expect((outcome as ValidationError).details).toEqual({ reason: 'shadow-labels', id: 'demo', version: '1.2.0', active: '1.0.0' });
    expect(served).toEqual(['demo/1.2.0/onnx/model.onnx:0']);
    expect((await store.version('demo@1.2.0'))?.status).toBe('downloading');
    expect(await store.pointer('demo')).toMatchObject({ active: 'demo@1.0.0' });
    expect((await registry.readActive('demo')).manifest.version).toBe('1.0.0');
  });

  it('still stops a requested shadow install its user cancels mid-download, as cancelled, and resumes it later into shadow', async () => {
    const { store, server } = await setup({ version: '1.0.0', sequence: 1 }, { version: '1.1.0', sequence: 2 });
    const cancel = new AbortController();
    const registry = registryOver(store, async (input, init) => {
      if (secondModelChunk('1.1.0', input, init) && !cancel.signal.aborted) {
        cancel.abort();
        await vi.waitFor(() => expect(init?.signal?.aborted).toBe(true));
        throw new DOMException('The download was stopped.', 'AbortError');
      }
      return server.fetch(input, init);
    });
    await registry.install(urls('1.0.0'));
    await expect(registry.install(urls('1.1.0'), cancel.signal, 'shadow')).rejects.toBeInstanceOf(CancelledError);
    expect((await store.version('demo@1.1.0'))?.status).toBe('downloading');
    expect((await registry.readActive('demo')).manifest.version).toBe('1.0.0');
    await registry.resume('demo@1.1.0');
    expect(await store.pointer('demo')).toEqual({ id: 'demo', active: 'demo@1.0.0', shadow: 'demo@1.1.0' });
  });

  it('goes on with an install only its manifest put in shadow, and activates it as an ordinary update once the active version speaks other labels', async () => {
    const { registry, store, outcome, served } = await rolledBackMidDownload({ shadow: bar });
    expect(outcome).toMatchObject({ id: 'demo', version: '1.2.0', status: 'ready' });
    expect(served).toEqual(['demo/1.2.0/onnx/model.onnx:0', 'demo/1.2.0/onnx/model.onnx:4096', 'demo/1.2.0/onnx/model.onnx:8192']);
    expect((await store.pointer('demo'))?.active).toBe('demo@1.2.0');
    expect(registry.notices).toContainEqual({ kind: 'not-shadowed', id: 'demo', version: '1.2.0' });
  });

  it('puts a candidate with the same labels in another order in shadow, as asked', async () => {
    const { registry, store } = await setup({ version: '1.0.0', sequence: 1, labels: ['ham', 'spam'] }, { version: '1.1.0', sequence: 2, labels: ['spam', 'ham'], shadow: bar });
    await registry.install(urls('1.0.0'));
    await registry.install(urls('1.1.0'));
    expect(await store.pointer('demo')).toEqual({ id: 'demo', active: 'demo@1.0.0', shadow: 'demo@1.1.0' });
    expect(registry.notices).toEqual([]);
  });
});

describe('ModelRegistry.exportBundle (device-to-device sharing)', () => {
  it('exports an installed version that another device installs with the same checks and no network', async () => {
    const { registry } = await setup({ version: '1.0.0', sequence: 1 });
    await registry.install(urls('1.0.0'));
    const { name, blob } = await registry.exportBundle('demo@1.0.0');
    expect(name).toBe('demo-1.0.0.lantern');
    const other = await setup();
    const record = await other.registry.installBundle(blob);
    expect(record).toMatchObject({ key: 'demo@1.0.0', status: 'ready' });
    expect((await other.store.pointer('demo'))?.active).toBe('demo@1.0.0');
  });

  it('refuses to export a version whose stored bytes changed, or one that is not installed', async () => {
    const { registry, store } = await setup({ version: '1.0.0', sequence: 1 });
    await registry.install(urls('1.0.0'));
    await expect(registry.exportBundle('demo@9.9.9')).rejects.toThrow('Only a completely installed version can be shared.');
    const manifest = (await registry.activeManifest('demo'))!.manifest;
    await store.putChunk(manifest.files[0]!.chunks[0]!, new Uint8Array(4096).buffer);
    await expect(registry.exportBundle('demo@1.0.0')).rejects.toThrow(/no longer matches its signed manifest/);
  });

  it('refuses to export a release that has expired: no device would install it', async () => {
    const { registry } = await setup({ version: '1.0.0', sequence: 1, expiresAt: new Date(Date.now() + 60_000).toISOString() });
    await registry.install(urls('1.0.0'));
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 120_000 });
    try {
      // It keeps answering here; only passing it on is refused, before any file is read.
      await expect(registry.exportBundle('demo@1.0.0')).rejects.toThrow(/expired.*cannot be shared/);
    } finally {
      vi.useRealTimers();
    }
  });

  it('the receiving device refuses a bundle of an older version, one with its signatures stripped, and one its trust store does not vouch for', async () => {
    const { registry } = await setup({ version: '1.0.0', sequence: 1 });
    await registry.install(urls('1.0.0'));
    const { blob } = await registry.exportBundle('demo@1.0.0');
    const bytes = new Uint8Array(await blob.arrayBuffer());
    // Newer here already: the bundle would be a downgrade.
    const newer = await setup({ version: '1.0.0', sequence: 1 }, { version: '1.1.0', sequence: 2 });
    await newer.registry.install(urls('1.1.0'));
    await expect(newer.registry.installBundle(blob)).rejects.toMatchObject({ code: 'DOWNGRADE' });
    expect((await newer.store.pointer('demo'))?.active).toBe('demo@1.1.0');
    // The same bytes with an empty signature list in the header (same length, so offsets hold).
    const text = new TextDecoder('latin1').decode(bytes);
    const signed = /"signatures":\{"signatures":\[.*?\]\}/.exec(text)![0];
    const stripped = `"signatures":{"signatures":[]}`.padEnd(signed.length - 1, ' ') + '}';
    const tampered = bytes.slice();
    tampered.set(new TextEncoder().encode(stripped), text.indexOf(signed));
    const other = await setup();
    // An empty signature list is not even a well-formed header.
    await expect(other.registry.installBundle(new Blob([tampered]))).rejects.toMatchObject({ code: 'VALIDATION' });
    // A device whose trust store predates this publisher's key.
    const { trust: older } = await keyAndTrust();
    const stranger = new ModelRegistry({ store: await freshStore(), trust: older, policy: new OriginPolicy(ORIGIN) });
    await expect(stranger.installBundle(blob)).rejects.toMatchObject({ code: 'SIGNATURE' });
    expect(await other.store.pointer('demo')).toBeUndefined();
  });

  it('a tampered export is refused by the receiving device, which keeps what it had', async () => {
    const { registry } = await setup({ version: '1.0.0', sequence: 1 });
    await registry.install(urls('1.0.0'));
    const bytes = new Uint8Array(await (await registry.exportBundle('demo@1.0.0')).blob.arrayBuffer());
    bytes[bytes.length - 100]! ^= 1;
    const other = await setup();
    await expect(other.registry.installBundle(new Blob([bytes]))).rejects.toThrow(/does not match/);
    expect(await other.store.pointer('demo')).toBeUndefined();
  });
});
