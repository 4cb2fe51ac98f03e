import 'fake-indexeddb/auto';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { CandidateRun, ClassificationResult } from '../lantern.ts';
import { versionKey } from '../store/manifest.ts';
import { OriginPolicy } from '../store/net.ts';
import { ModelRegistry } from '../store/registry.ts';
import { FakeServer, freshStore, keyAndTrust, makeRelease, ORIGIN, urls } from '../store/test-helpers.ts';
import type { KeyFile, TrustStore } from '../store/trust.ts';
import { releaseControls } from './controls.ts';
import { withError } from './shadow.ts';
import type { ShadowRuntime } from './shadow-runner.ts';
import { memoryStorage } from './memory-storage.test-helpers.ts';

let key: KeyFile;
let trust: TrustStore;
beforeAll(async () => ({ key, trust } = await keyAndTrust(['demo', 'lite'])));

/** Counts the candidate sessions the controls open and close; shadow runs never settle. */
class FakeRuntime implements ShadowRuntime {
  queueDepth = 0;
  schedulerStats = { running: 0 };
  opened = 0;
  closed = 0;
  candidate(): CandidateRun {
    this.opened++;
    return { load: () => Promise.resolve(), classify: () => new Promise<ClassificationResult>(() => undefined), close: () => Promise.resolve(void this.closed++), hung: () => false };
  }
}

const answer = (version: string): ClassificationResult => ({
  modelId: 'demo', version, signed: true, predictions: [{ label: 'a', score: 0.9, index: 0 }], notes: [], backend: 'wasm', backendReason: { kind: 'wasm-requested' },
  unsure: false, unsureBelow: 0, batchSize: 1, coldStart: false, retried: false, cached: false,
  timings: { queueMs: 0, loadMs: 0, preprocessMs: 0, inferenceMs: 1, postprocessMs: 0, totalMs: 1 },
});

async function setup() {
  const store = await freshStore();
  const server = new FakeServer();
  // demo 2.x speaks other labels than demo 1.x and lite.
  const releases: [string, string, number, string[]?][] = [['demo', '1.0.0', 1], ['demo', '1.1.0', 2], ['demo', '1.2.0', 3], ['lite', '1.0.0', 1], ['demo', '2.0.0', 4, ['a', 'b', 'c']], ['demo', '2.1.0', 5, ['a', 'b', 'c']]];
  for (const [id, version, sequence, labels] of releases) server.add(await makeRelease(key, { id, version, sequence, ...(labels ? { labels } : {}) }));
  const registry = new ModelRegistry({ store, trust, policy: new OriginPolicy(ORIGIN), fetch: server.fetch, backoffMs: 1, retries: 2 });
  const runtime = new FakeRuntime();
  const storage = memoryStorage();
  const controls = releaseControls({
    runtime: () => runtime,
    registry: Promise.resolve(registry),
    candidate: async (id) => {
      const manifest = await registry.candidateManifest(id);
      return manifest && {
        key: versionKey(manifest),
        descriptor: { id, version: manifest.version, title: manifest.title, task: manifest.task, batch: manifest.batch, labels: manifest.labels, sizeBytes: 1, samples: [], signed: true },
        files: () => Promise.reject(new Error('not read in this test')),
      };
    },
    storage,
    hidden: () => false,
  });
  return { registry, store, runtime, storage, controls, evaluation: await controls.evaluation };
}

describe('release controls follow the model store', () => {
  it('a removed model takes its settings with it, and no model falls back to it any more', async () => {
    const { registry, controls, storage } = await setup();
    await registry.install(urls('1.0.0'));
    await registry.install(urls('1.0.0', 'lite'));
    controls.settings.set('demo', { fallback: 'lite', cache: true });
    controls.settings.set('lite', { fallback: 'demo' });
    // Settings survive an update of the model and a reload (a new instance on the same storage).
    await registry.install(urls('1.1.0'));
    const reloaded = releaseControls({ runtime: () => new FakeRuntime(), registry: Promise.resolve(registry), candidate: () => Promise.resolve(undefined), storage, hidden: () => false });
    await vi.waitFor(() => expect(reloaded.settings.fallbackFor('demo')).toBe('lite'));
    expect(reloaded.settings.cacheEnabled('demo')).toBe(true);

    await registry.removeModel('lite');
    // A fallback to a model that is gone would still halve the primary's deadline.
    await vi.waitFor(() => expect(controls.settings.fallbackFor('demo')).toBeUndefined());
    expect(controls.settings.get('demo').fallbackCleared).toEqual({ id: 'lite', reason: 'removed' });
    expect(controls.settings.get('lite')).toEqual({});
    expect(controls.settings.cacheEnabled('demo')).toBe(true);
    await registry.removeModel('demo');
    await vi.waitFor(() => expect(controls.settings.cacheEnabled('demo')).toBe(false));
  });

  it('a fallback that stops speaking its primary\'s labels is cleared with a note, whichever of the two changed', async () => {
    const { registry, controls } = await setup();
    await registry.install(urls('1.0.0'));
    await registry.install(urls('1.0.0', 'lite'));
    controls.settings.set('demo', { fallback: 'lite', cache: true });
    controls.settings.set('lite', { fallback: 'demo' });
    // An update with the same labels keeps both choices.
    await registry.install(urls('1.1.0'));
    // demo 2.0.0 speaks other labels: lite's answers mean something else for it, and the other way round.
    await registry.install(urls('2.0.0'));
    await vi.waitFor(() => expect(controls.settings.get('lite')).toEqual({ fallbackCleared: { id: 'demo', reason: 'labels' } }));
    expect(controls.settings.get('demo')).toEqual({ cache: true, fallbackCleared: { id: 'lite', reason: 'labels' } });
    // Rolling back does not bring a choice back behind the user's back; choosing again clears the note.
    await registry.rollback('demo', 'demo@1.1.0');
    controls.settings.set('demo', { fallback: 'lite' });
    // A setting of no installed model, dropped by the next pass: once it is, that pass has run.
    controls.settings.set('ghost', { cache: true });
    await registry.removeVersion('demo@2.0.0');
    await vi.waitFor(() => expect(controls.settings.get('ghost')).toEqual({}));
    expect(controls.settings.get('demo')).toEqual({ fallback: 'lite', cache: true });
  });

  it('a model whose only version was quarantined keeps its fallback: that is when it answers', async () => {
    const { registry, store, controls } = await setup();
    await registry.install(urls('1.0.0'));
    await registry.install(urls('1.0.0', 'lite'));
    controls.settings.set('demo', { fallback: 'lite' });
    const manifest = (await registry.activeManifest('demo'))!.manifest;
    await store.putChunk(manifest.files[0]!.chunks[0]!, new Uint8Array(4096).buffer);
    await expect(registry.readActive('demo')).rejects.toMatchObject({ code: 'INTEGRITY' });
    expect(await store.pointer('demo')).toBeUndefined();
    controls.settings.set('ghost', { cache: true });
    await registry.removeModel('ghost');
    await vi.waitFor(() => expect(controls.settings.get('ghost')).toEqual({}));
    expect(controls.settings.fallbackFor('demo')).toBe('lite');
  });

  it('a candidate removed from shadow loses its figures: installed again, it starts from zero', async () => {
    const { registry, evaluation } = await setup();
    await registry.install(urls('1.0.0'));
    await registry.install(urls('1.1.0'), undefined, 'shadow');
    evaluation.shadow.update('demo@1.1.0', withError);
    await registry.removeVersion('demo@1.1.0');
    await vi.waitFor(() => expect(evaluation.shadow.figures('demo@1.1.0').errors).toBe(0));
    await registry.install(urls('1.1.0'), undefined, 'shadow');
    expect(evaluation.shadow.figures('demo@1.1.0').errors).toBe(0);
  });

  it('a candidate whose active version changes to one with other labels leaves shadow, recorded as ended with its figures, not refused', async () => {
    const changes = {
      rollback: (registry: ModelRegistry) => registry.rollback('demo', 'demo@1.0.0'),
      automatic: (registry: ModelRegistry) => registry.rollBackAutomatically('demo@2.0.0', 'rolled back after failing in real use'),
    };
    for (const [how, change] of Object.entries(changes)) {
      const { registry, store, controls, runtime, evaluation } = await setup();
      await registry.install(urls('1.0.0'));
      await registry.install(urls('2.0.0'));
      await registry.install(urls('2.1.0'), undefined, 'shadow');
      evaluation.shadow.update('demo@2.1.0', withError);
      controls.observe('demo', 'some text', answer('2.0.0'));
      await vi.waitFor(() => expect(runtime.opened).toBe(1));
      await change(registry);
      await vi.waitFor(() => expect(evaluation.decisions.decisions(), how).toMatchObject([{ key: 'demo@2.1.0', decision: 'ended', automatic: true, runs: 0, errors: 1 }]));
      expect((await store.pointer('demo'))?.shadow, how).toBeUndefined();
      // Collected, not marked rejected: nothing was decided about it, so it is still an update to offer.
      expect(await store.version('demo@2.1.0'), how).toBeUndefined();
      expect(evaluation.shadow.figures('demo@2.1.0').errors, how).toBe(0);
      expect(runtime.closed, how).toBe(1);
    }
  });

  it('keeps the candidate\'s session through store changes that leave it in shadow, and frees it when it leaves', async () => {
    const { registry, controls, runtime } = await setup();
    await registry.install(urls('1.0.0'));
    await registry.install(urls('1.2.0'), undefined, 'shadow');
    controls.observe('demo', 'some text', answer('1.0.0'));
    await vi.waitFor(() => expect(runtime.opened).toBe(1));
    // Another model's download (a notification per chunk) and the activation of 1.1.0.
    await registry.install(urls('1.0.0', 'lite'));
    await registry.install(urls('1.1.0'));
    controls.settings.set('lite', { cache: true });
    await registry.removeModel('lite');
    // Store changes are followed in order: once the removal is, the earlier ones were too.
    await vi.waitFor(() => expect(controls.settings.get('lite')).toEqual({}));
    expect([runtime.opened, runtime.closed]).toEqual([1, 0]);
    await registry.removeVersion('demo@1.2.0');
    await vi.waitFor(() => expect(runtime.closed).toBe(1));
  });
});
