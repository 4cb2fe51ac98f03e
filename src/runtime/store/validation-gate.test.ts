import 'fake-indexeddb/auto';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { BusyError, CancelledError, NetworkError, RuntimeUnavailableError, TimeoutError, ValidationError } from '../errors.ts';
import { OriginPolicy } from './net.ts';
import { parseManifest, type ReleaseValidation } from './manifest.ts';
import { ModelRegistry, type CandidateValidator, type GoldenOutcome } from './registry.ts';
import { freshStore, keyAndTrust, makeRelease } from './test-helpers.ts';
import { writeBundle } from './bundle.ts';
import type { KeyFile, TrustStore } from './trust.ts';
import { ModelStore } from './model-store.ts';

/**
 * The validation gate and the automatic rollback, on a real (fake-indexeddb) store with signed
 * releases. The validator is a stub returning a chosen outcome: running real inference on the
 * golden set is covered end to end in e2e/faults.spec.ts.
 */
let key: KeyFile;
let trust: TrustStore;
beforeAll(async () => ({ key, trust } = await keyAndTrust()));

const GOLDEN: ReleaseValidation = { threshold: 0.8, items: [1, 2, 3, 4, 5].map((i) => ({ input: { kind: 'text' as const, text: `item ${i}` }, label: 'a' })) };

async function bundleFor(version: string, sequence: number, validation?: ReleaseValidation) {
  const release = await makeRelease(key, { version, sequence, ...(validation ? { validation } : {}) });
  return new Blob([writeBundle(release.bytes, release.signatures, [...release.files].map(([path, bytes]) => ({ path, bytes })))]);
}

async function setup(outcome: GoldenOutcome | Error) {
  const store = await freshStore();
  const seen: string[] = [];
  const validate: CandidateValidator = async (manifest) => {
    seen.push(`${manifest.id}@${manifest.version}`);
    if (outcome instanceof Error) throw outcome;
    return outcome;
  };
  const registry = new ModelRegistry({ store, trust, policy: new OriginPolicy('https://models.example'), validate });
  await registry.installBundle(await bundleFor('1.0.0', 1));
  return { store, registry, seen };
}

describe('manifest validation field', () => {
  it('is optional (old manifests parse) and round-trips when present', async () => {
    const plain = await makeRelease(key, { version: '1.0.0', sequence: 1 });
    expect(parseManifest(plain.bytes).validation).toBeUndefined();
    const gated = await makeRelease(key, { version: '1.0.1', sequence: 2, validation: GOLDEN });
    expect(parseManifest(gated.bytes).validation).toEqual(GOLDEN);
  });

  it('refuses a golden image that is not a file of the release, and a threshold above 1', async () => {
    await expect(makeRelease(key, { version: '1.0.1', sequence: 2, validation: { threshold: 0.5, items: [{ input: { kind: 'image', path: 'golden/x.png' }, label: 'a' }] } }))
      .rejects.toThrow(/golden image must be a listed file/);
    await expect(makeRelease(key, { version: '1.0.1', sequence: 2, validation: { ...GOLDEN, threshold: 1.5 } })).rejects.toThrow(ValidationError);
  });
});

describe('validation gate', () => {
  it('activates a candidate at or above the threshold with no failed run', async () => {
    const { store, registry, seen } = await setup({ total: 5, correct: 4, failed: 0 });
    await registry.installBundle(await bundleFor('1.1.0', 2, GOLDEN));
    expect(seen).toEqual(['demo@1.1.0']);
    expect((await store.pointer('demo'))?.active).toBe('demo@1.1.0');
  });

  it('below the threshold: stays on the previous version, marks the candidate rejected and says why', async () => {
    const { store, registry } = await setup({ total: 5, correct: 3, failed: 0 });
    const error = await registry.installBundle(await bundleFor('1.1.0', 2, GOLDEN)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).message).toMatch(/accuracy 60\.0% is below the release's threshold of 80\.0%/);
    expect((await store.pointer('demo'))?.active).toBe('demo@1.0.0');
    expect(await store.version('demo@1.1.0')).toMatchObject({ status: 'rejected', reason: expect.stringMatching(/60\.0%/) });
    expect(registry.notices).toEqual([expect.objectContaining({ kind: 'rejected', id: 'demo', version: '1.1.0' })]);
    // The rejected sequence was never activated: a fixed release with the same sequence may follow.
    expect(await store.highestSequence('demo')).toBe(1);
  });

  it('one failed run rejects even at full accuracy of the others, and a throwing validator rejects too', async () => {
    const { store, registry } = await setup({ total: 5, correct: 4, failed: 1 });
    await expect(registry.installBundle(await bundleFor('1.1.0', 2, GOLDEN))).rejects.toThrow(/1 of 5 validation items failed to run/);
    expect((await store.pointer('demo'))?.active).toBe('demo@1.0.0');
    const crashed = await setup(new Error('worker died'));
    await expect(crashed.registry.installBundle(await bundleFor('1.1.0', 2, GOLDEN))).rejects.toThrow(/5 of 5 validation items failed/);
    expect((await crashed.store.pointer('demo'))?.active).toBe('demo@1.0.0');
  });

  it.each([
    ['a runtime too busy to judge', new BusyError('The request queue is full.')],
    ['ONNX Runtime that could not start', new RuntimeUnavailableError('The inference worker could not start.')],
    ['items past their deadline that hung no worker', new TimeoutError('The request missed its deadline.')],
    ['the gate\'s own code, not loadable offline', new NetworkError('The code for this action could not be loaded; check the connection and try again.')],
  ])('%s is no verdict: the error, the candidate is not rejected and validates on resume', async (_, noVerdict) => {
    const { store, registry } = await setup(noVerdict);
    await expect(registry.installBundle(await bundleFor('1.1.0', 2, GOLDEN))).rejects.toBe(noVerdict);
    expect((await store.pointer('demo'))?.active).toBe('demo@1.0.0');
    expect((await registry.readActive('demo')).manifest.version).toBe('1.0.0');
    expect((await store.version('demo@1.1.0'))?.status).not.toBe('rejected');
    expect(registry.notices).toEqual([]);
  });

  it('a first install without a golden set is not loaded first; an update without one is, and a model that loads is activated', async () => {
    const { store, registry, seen } = await setup({ total: 0, correct: 0, failed: 0 });
    expect(seen).toEqual([]);
    await registry.installBundle(await bundleFor('1.1.0', 2));
    expect(seen).toEqual(['demo@1.1.0']);
    expect((await registry.readActive('demo')).manifest.version).toBe('1.1.0');
    expect(await store.version('demo@1.1.0')).toMatchObject({ status: 'ready' });
  });

  it.each([
    ['an unloadable outcome', { total: 0, correct: 0, failed: 0, unloadable: true } as const],
    ['a validator that throws', new Error('the worker could not be started')],
  ])('an update without a golden set that cannot be loaded is refused: %s', async (_, outcome) => {
    const { store, registry } = await setup(outcome);
    const error = await registry.installBundle(await bundleFor('1.1.0', 2)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).message).toMatch(/its model could not be loaded on this device/);
    expect(await store.version('demo@1.1.0')).toMatchObject({ status: 'rejected', reason: 'its model could not be loaded on this device' });
    expect(registry.notices).toEqual([expect.objectContaining({ kind: 'rejected', id: 'demo', version: '1.1.0' })]);
    // The version it would have replaced still answers, read back verified.
    expect((await registry.readActive('demo')).manifest.version).toBe('1.0.0');
  });

  it('a candidate that hung its worker is refused, whatever its counts', async () => {
    const { store, registry } = await setup({ total: 5, correct: 5, failed: 0, hung: true });
    const error = await registry.installBundle(await bundleFor('1.1.0', 2, GOLDEN)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).message).toMatch(/kept the inference worker busy until it had to be restarted/);
    expect((await store.pointer('demo'))?.active).toBe('demo@1.0.0');
    expect((await registry.readActive('demo')).manifest.version).toBe('1.0.0');
    expect((await store.version('demo@1.1.0'))?.status).toBe('rejected');
  });

  it('hands the install\'s signal to the validator: cancelling the install cancels the golden set', async () => {
    const store = await freshStore();
    let seen: AbortSignal | undefined;
    const validate: CandidateValidator = (_, __, signal) => new Promise((_resolve, reject) => {
      seen = signal;
      signal?.addEventListener('abort', () => reject(new CancelledError('The request was cancelled.')), { once: true });
    });
    const registry = new ModelRegistry({ store, trust, policy: new OriginPolicy('https://models.example'), validate });
    await registry.installBundle(await bundleFor('1.0.0', 1));
    const controller = new AbortController();
    const installing = registry.installBundle(await bundleFor('1.1.0', 2, GOLDEN), controller.signal);
    await vi.waitFor(() => expect(seen).toBe(controller.signal));
    controller.abort();
    await expect(installing).rejects.toBeInstanceOf(CancelledError);
    expect((await store.pointer('demo'))?.active).toBe('demo@1.0.0');
    expect((await store.version('demo@1.1.0'))?.status).not.toBe('rejected');
  });
});

describe('automatic rollback', () => {
  it('returns to the previous version, marks the failing one rejected and records a notice', async () => {
    const { store, registry } = await setup({ total: 5, correct: 5, failed: 0 });
    await registry.installBundle(await bundleFor('1.1.0', 2));
    expect(await registry.rollBackAutomatically('demo@1.1.0', 'rolled back automatically: 5 of its last 5 requests failed')).toBe('demo@1.0.0');
    expect((await store.pointer('demo'))?.active).toBe('demo@1.0.0');
    expect(await store.version('demo@1.1.0')).toMatchObject({ status: 'rejected', reason: expect.stringContaining('5 of its last 5') });
    expect(registry.notices.at(-1)).toMatchObject({ kind: 'rolled-back', version: '1.1.0', fallbackVersion: '1.0.0' });
    // Not twice, and never for a version that is no longer active.
    expect(await registry.rollBackAutomatically('demo@1.1.0', 'again')).toBeUndefined();
  });

  it('does nothing when there is no previous version to return to', async () => {
    const { store, registry } = await setup({ total: 5, correct: 5, failed: 0 });
    expect(await registry.rollBackAutomatically('demo@1.0.0', 'x')).toBeUndefined();
    expect((await store.pointer('demo'))?.active).toBe('demo@1.0.0');
  });
});

describe('malformed manifests and a store closed by another tab', () => {
  const enc = (text: string) => new TextEncoder().encode(text);

  it('refuses bad bytes with a ValidationError that names the problem, never the content', async () => {
    const good = JSON.parse(new TextDecoder().decode((await makeRelease(key, { version: '1.0.0', sequence: 1 })).bytes)) as Record<string, unknown>;
    const secret = 'SECRET-CONTENT-7731';
    const cases = [
      new Uint8Array([0xff, 0xfe, 0x00]),
      enc(`{"format": "${secret}"`),
      enc(JSON.stringify({ ...good, format: secret })),
      enc(JSON.stringify({ ...good, files: [{ ...(good.files as object[])[0], path: `../../${secret}` }] })),
      enc(JSON.stringify({ ...good, sequence: -1 })),
    ];
    for (const bytes of cases) {
      const error = (() => { try { parseManifest(bytes); return undefined; } catch (e) { return e as Error; } })();
      expect(error).toBeInstanceOf(ValidationError);
      expect(error!.message).not.toContain(secret);
    }
  });

  it('fails with a StorageError once another tab upgrades the database, and leaves it intact', async () => {
    const { store } = await setup({ total: 5, correct: 5, failed: 0 });
    const name = (store as unknown as { handle: IDBDatabase }).handle.name;
    // Another tab opens a newer version; ours steps aside, the other aborts its upgrade.
    await new Promise<void>((resolve) => {
      const request = indexedDB.open(name, (store as unknown as { handle: IDBDatabase }).handle.version + 1);
      request.onupgradeneeded = () => request.transaction!.abort();
      request.onerror = () => resolve();
    });
    await expect(store.pointer('demo')).rejects.toThrow(/being upgraded by another Lantern tab/);
    await expect(store.activate('demo@1.0.0')).rejects.toMatchObject({ code: 'STORAGE' });
    const reopened = await ModelStore.open(name);
    expect((await reopened.pointer('demo'))?.active).toBe('demo@1.0.0');
  });
});
