import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { BusyError, CancelledError, ModelLoadError, RuntimeUnavailableError, TimeoutError } from './errors.ts';
import { GOLDEN_ITEM_TIMEOUT_MS, goldenValidator } from './golden-gate.ts';
import { CANDIDATE_LOAD_TIMEOUT_MS } from './golden-run.ts';
import { ABANDONED_CALL_LIMIT_MS } from './worker-client.ts';
import { Lantern } from './lantern.ts';
import { readVerified } from './store/verified-read.ts';
import { keyAndTrust, makeRelease } from './store/test-helpers.ts';
import type { KeyFile } from './store/trust.ts';
import { fakeSource, fakeWorkers, stubNavigatorLocks, type FakeInference } from './worker.test-helpers.ts';

/**
 * The gate's runner on a real Lantern (scheduler, WorkerClient, comlink) with fake workers whose
 * "model" labels each text with itself: a golden item is correct when its text is its label.
 */
let key: KeyFile;
beforeAll(async () => ({ key } = await keyAndTrust()));
let lantern: Lantern | undefined;
beforeEach(stubNavigatorLocks);
afterEach(() => {
  vi.useRealTimers();
  lantern?.dispose();
  lantern = undefined;
  vi.unstubAllGlobals();
});

/** A release with these golden items, or none (`undefined`: no golden set). */
async function candidate(items: { text: string; label: string }[] | undefined) {
  const release = await makeRelease(key, {
    version: '1.1.0', sequence: 2,
    ...(items ? { validation: { threshold: 0.5, items: items.map(({ text, label }) => ({ input: { kind: 'text' as const, text }, label })) } } : {}),
  });
  const read = await readVerified({ getChunk: async (sha) => chunkOf(release, sha) }, release.manifest);
  if (!read.ok) throw new Error('test release did not verify');
  return { manifest: release.manifest, read };
}

function chunkOf(release: Awaited<ReturnType<typeof makeRelease>>, sha: string): ArrayBuffer | undefined {
  for (const file of release.manifest.files) {
    const i = file.chunks.indexOf(sha);
    if (i >= 0) return release.files.get(file.path)!.slice(i * file.chunkSize, (i + 1) * file.chunkSize).buffer;
  }
  return undefined;
}

function runtime() {
  const { createWorker, log } = fakeWorkers();
  lantern = new Lantern({ createWorker, models: fakeSource(['demo']), idleMs: 0 });
  return { lantern, log };
}

describe('goldenValidator', () => {
  it('counts correct, wrong and failed items, and frees the candidate afterwards', async () => {
    const { lantern, log } = runtime();
    const { manifest, read } = await candidate([
      { text: 'a', label: 'a' }, { text: 'b', label: 'b' }, { text: 'c', label: 'not c' }, { text: '', label: 'a' },
    ]);
    expect(await goldenValidator(() => lantern)(manifest, read)).toEqual({ total: 4, correct: 2, failed: 1 });
    const worker = log.started[0]!;
    expect(worker.batches.every((b) => b.key.startsWith('candidate:'))).toBe(true);
    expect(worker.loaded.size).toBe(0);
  });

  it('loads the candidate first, also without a golden set, and frees it: a model that loads passes', async () => {
    const { lantern, log } = runtime();
    const loads: string[] = [];
    log.onLoad = (loaded) => loads.push(loaded);
    const { manifest, read } = await candidate(undefined);
    expect(await goldenValidator(() => lantern)(manifest, read)).toEqual({ total: 0, correct: 0, failed: 0 });
    expect(loads).toEqual([expect.stringMatching(/^candidate:/)]);
    expect(log.started[0]!.batches).toEqual([]);
    expect(log.started[0]!.loaded.size).toBe(0);
  });

  it('a candidate whose model cannot be loaded is unloadable, a verdict: none of its golden items runs', async () => {
    const { lantern, log } = runtime();
    log.onLoad = (loaded) => {
      if (loaded.startsWith('candidate:')) throw new ModelLoadError('The model could not be loaded: protobuf parsing failed.');
    };
    for (const items of [undefined, [{ text: 'a', label: 'a' }, { text: 'b', label: 'b' }]]) {
      const { manifest, read } = await candidate(items);
      expect(await goldenValidator(() => lantern)(manifest, read)).toEqual({ total: items?.length ?? 0, correct: 0, failed: items?.length ?? 0, unloadable: true });
    }
    expect(log.started[0]!.batches).toEqual([]);
    // The runtime itself is unharmed: the active model answers.
    log.onLoad = undefined;
    expect((await lantern.classify('demo', { kind: 'text', text: 'after' })).predictions[0]?.label).toBe('after');
  });

  it('is not failed by a worker crash: the items are retried like any request', async () => {
    const { lantern, log } = runtime();
    const items = Array.from({ length: 40 }, (_, i) => ({ text: `item ${i}`, label: `item ${i}` }));
    const { manifest, read } = await candidate(items);
    let crashes = 1;
    log.onClassify = (inputs, worker) => { if (inputs.some((i) => i.kind === 'text' && i.text === 'item 20') && crashes-- > 0) worker.die(); };
    // Each load, the fresh worker's included, is handed the whole graph (a load moves its bytes).
    const graph = read.files.get('onnx')!.byteLength;
    const graphBytes: number[] = [];
    log.onLoad = (_, __, files) => graphBytes.push(files.onnx.byteLength);
    expect(await goldenValidator(() => lantern)(manifest, read)).toEqual({ total: 40, correct: 40, failed: 0 });
    expect(log.started.length).toBe(2);
    expect(graph).toBeGreaterThan(0);
    expect(graphBytes).toEqual([graph, graph]);
  });

  it('gives no verdict when the request queue is full: BusyError, not failed items', async () => {
    const { createWorker } = fakeWorkers();
    lantern = new Lantern({ createWorker, models: fakeSource(['demo']), idleMs: 0, maxQueued: 4 });
    const { manifest, read } = await candidate(Array.from({ length: 16 }, (_, i) => ({ text: `${i}`, label: `${i}` })));
    await expect(goldenValidator(() => lantern!)(manifest, read)).rejects.toBeInstanceOf(BusyError);
  });

  it('gives no verdict when ONNX Runtime cannot start: RuntimeUnavailableError, not a rejected release', async () => {
    const { lantern, log } = runtime();
    log.onLoad = () => {
      throw new RuntimeUnavailableError('ONNX Runtime could not start: the wasm did not arrive');
    };
    const { manifest, read } = await candidate([{ text: 'a', label: 'a' }]);
    await expect(goldenValidator(() => lantern)(manifest, read)).rejects.toBeInstanceOf(RuntimeUnavailableError);
  });

  it('submits the golden set in slices, so it never fills the request queue', async () => {
    const { lantern, log } = runtime();
    const { manifest, read } = await candidate(Array.from({ length: 40 }, (_, i) => ({ text: `${i}`, label: `${i}` })));
    // Each slice is submitted at once (one batch per tick): the worker sees slices, never all 40.
    const batches: number[] = [];
    log.onClassify = (inputs) => batches.push(inputs.length);
    await goldenValidator(() => lantern)(manifest, read);
    expect(batches.reduce((a, b) => a + b, 0)).toBe(40);
    expect(Math.max(...batches)).toBeLessThanOrEqual(16);
    expect(batches.length).toBeGreaterThanOrEqual(3);
  });
});

describe('goldenValidator deadlines', () => {
  const isText = (text: string) => (input: { kind: string; text?: string }) => input.kind === 'text' && input.text === text;

  /** A runtime whose first worker has started and answered (on the fake clock, a start would never answer). */
  async function warmRuntime() {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const started = runtime();
    await started.lantern.classify('demo', { kind: 'text', text: 'warm' });
    return started;
  }

  it('a candidate that hangs its worker on a golden item is a verdict: the item is given up at its deadline, the worker restarted, the outcome hung', async () => {
    const { lantern, log } = await warmRuntime();
    const { manifest, read } = await candidate([{ text: 'a', label: 'a' }, { text: 'hangs', label: 'hangs' }]);
    // A run that never ends holds the worker's thread: it answers nothing, not even the unload.
    let hung: FakeInference | undefined;
    log.onClassify = (inputs, worker) => {
      if (!inputs.some(isText('hangs'))) return;
      hung = worker;
      worker.dead = true;
    };
    let outcome: unknown;
    const judged = goldenValidator(() => lantern)(manifest, read).then((o) => (outcome = o));
    await vi.waitFor(() => expect(hung).toBeDefined());
    await vi.advanceTimersByTimeAsync(GOLDEN_ITEM_TIMEOUT_MS);
    expect(outcome).toBeUndefined();
    await vi.advanceTimersByTimeAsync(ABANDONED_CALL_LIMIT_MS);
    await judged;
    expect(outcome).toEqual({ total: 2, correct: 0, failed: 2, hung: true });
    // The hung worker was restarted: the model answers on a fresh one, started after it.
    log.onClassify = undefined;
    expect((await lantern.classify('demo', { kind: 'text', text: 'after' })).predictions[0]?.label).toBe('after');
    expect(log.started.indexOf(hung!)).toBeLessThan(log.started.length - 1);
  });

  it('a candidate whose load never finishes is given up at its deadline, no verdict (the install never stalls): TimeoutError', async () => {
    const { lantern, log } = await warmRuntime();
    const { manifest, read } = await candidate(undefined);
    let hung: FakeInference | undefined;
    log.onLoad = (loaded, worker) => {
      if (!loaded.startsWith('candidate:')) return;
      hung = worker;
      worker.dead = true;
    };
    let error: unknown;
    const judged = goldenValidator(() => lantern)(manifest, read).catch((e: unknown) => (error = e));
    await vi.waitFor(() => expect(hung).toBeDefined());
    // (waitFor moved the fake clock on a little while it polled.)
    await vi.advanceTimersByTimeAsync(CANDIDATE_LOAD_TIMEOUT_MS - 1000);
    expect(error).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1000);
    await judged;
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).details).toEqual({ reason: 'gate-timeout', id: 'demo', version: '1.1.0' });
    // The worker the load holds answers nothing more. A request given up there has it restarted
    // (WorkerClient's abandoned calls), and the next one answers on a fresh worker.
    log.onLoad = undefined;
    const givenUp = lantern.classify('demo', { kind: 'text', text: 'waits' }, { timeoutMs: 1000 }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(1000 + ABANDONED_CALL_LIMIT_MS);
    expect(await givenUp).toBeInstanceOf(TimeoutError);
    expect((await lantern.classify('demo', { kind: 'text', text: 'after' })).predictions[0]?.label).toBe('after');
    expect(log.started.indexOf(hung!)).toBe(0);
    expect(log.started.length).toBe(2);
  });

  it('items past their deadline on a worker that is merely slow are no verdict: TimeoutError, and no worker is restarted', async () => {
    const { lantern, log } = await warmRuntime();
    const { manifest, read } = await candidate([{ text: 'a', label: 'a' }]);
    // Held past the item's deadline, then answered before the restart limit.
    let letGo: (() => void) | undefined;
    log.gate = () => new Promise<void>((resolve) => (letGo = resolve));
    let error: unknown;
    const judged = goldenValidator(() => lantern)(manifest, read).catch((e: unknown) => (error = e));
    await vi.waitFor(() => expect(letGo).toBeDefined());
    await vi.advanceTimersByTimeAsync(GOLDEN_ITEM_TIMEOUT_MS + ABANDONED_CALL_LIMIT_MS / 2);
    letGo!();
    await judged;
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).details).toEqual({ reason: 'gate-timeout', id: 'demo', version: '1.1.0' });
    expect(log.started.every((worker) => !worker.dead)).toBe(true);
    expect(log.started.every((worker) => [...worker.loaded].every((key) => !key.startsWith('candidate:')))).toBe(true);
  });

  it('items waiting while the runtime is paused (a hidden page) are not timed out: they run once it resumes', async () => {
    const { lantern, log } = await warmRuntime();
    const { manifest, read } = await candidate([{ text: 'a', label: 'a' }, { text: 'b', label: 'b' }]);
    lantern.pause();
    let outcome: unknown;
    // The candidate's load is no request: it does not wait for the queue to resume.
    let loaded = false;
    log.onLoad = (key) => void (loaded ||= key.startsWith('candidate:'));
    const judged = goldenValidator(() => lantern)(manifest, read).then((o) => (outcome = o), (e: unknown) => (outcome = e));
    await vi.waitFor(() => expect(loaded).toBe(true));
    await vi.advanceTimersByTimeAsync(5 * GOLDEN_ITEM_TIMEOUT_MS);
    expect(outcome).toBeUndefined();
    lantern.resume();
    await judged;
    expect(outcome).toEqual({ total: 2, correct: 2, failed: 0 });
  });

  it('stops when its caller cancels: CancelledError, and the candidate is freed', async () => {
    const { lantern, log } = runtime();
    const { manifest, read } = await candidate([{ text: 'a', label: 'a' }]);
    let letGo: (() => void) | undefined;
    log.gate = () => new Promise<void>((resolve) => (letGo = resolve));
    const controller = new AbortController();
    const judged = goldenValidator(() => lantern)(manifest, read, controller.signal);
    await vi.waitFor(() => expect(letGo).toBeDefined());
    controller.abort();
    letGo!();
    await expect(judged).rejects.toBeInstanceOf(CancelledError);
    expect(log.started.every((worker) => [...worker.loaded].every((key) => !key.startsWith('candidate:')))).toBe(true);
  });
});
