import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CancelledError, InputError, RuntimeUnavailableError, WorkerCrashedError } from './errors.ts';
import { Lantern, type RequestRecord } from './lantern.ts';
import { LOAD_GAP_MS, SUSTAINED_LOAD_MS } from './pool-policy.ts';
import { fakeSource, fakeWorkers, stubNavigatorLocks, type FakeInference } from './worker.test-helpers.ts';

/** Lantern over real WorkerClients and comlink, with fake workers on MessageChannels. */
let lantern: Lantern | undefined;
beforeEach(stubNavigatorLocks);
afterEach(() => {
  lantern?.dispose();
  lantern = undefined;
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

function setup(ids = ['spam']) {
  const { createWorker, log } = fakeWorkers();
  const records: RequestRecord[] = [];
  const source = fakeSource(ids);
  lantern = new Lantern({ createWorker, models: source, idleMs: 0, onRecord: (r) => records.push(r) });
  return { lantern, log, records, source };
}

/**
 * A pool with two backlog workers, on a fake performance clock, whose batches stay running until
 * the test lets them go: `held` holds each running batch's release, oldest first.
 */
function heldPool(options: { maxBatch?: number } = {}) {
  vi.useFakeTimers({ toFake: ['performance'] });
  const { createWorker, log } = fakeWorkers();
  const held: (() => void)[] = [];
  log.gate = () => new Promise<void>((resolve) => held.push(resolve));
  lantern = new Lantern({ createWorker, models: fakeSource(['spam']), idleMs: 0, backlogWorkers: 2, ...options });
  return { lantern, log, held };
}

const text = (t: string) => ({ kind: 'text' as const, text: t });
const descriptor = { id: 'spam', version: '2.0.0', title: 'spam', task: 'text-classification' as const, batch: 'dynamic' as const, labels: [], sizeBytes: 0, samples: [], signed: true };

describe('Lantern', () => {
  it('classifies through a worker, reports version, stages and a metrics record', async () => {
    const { lantern, records, source } = setup();
    const result = await lantern.classify('spam', text('ham'), { topK: 1 });
    expect(result).toMatchObject({ modelId: 'spam', version: '1.0.0', predictions: [{ label: 'ham', score: 1 }], backend: 'wasm', coldStart: true, retried: false });
    expect(result.timings.totalMs).toBeGreaterThanOrEqual(result.timings.queueMs);
    expect(source.filesRead).toEqual(['spam']);
    expect(records).toEqual([expect.objectContaining({ ok: true, modelId: 'spam', label: 'ham' })]);
    // Warm now: no second read of the files.
    expect((await lantern.classify('spam', text('x'))).coldStart).toBe(false);
    expect(source.filesRead).toEqual(['spam']);
  });

  it('runs the version now active once its source says it changed (another tab activated it), and keeps the loaded one until then', async () => {
    const { createWorker, log } = fakeWorkers();
    let version = '1.0.0';
    const changed = new Set<() => void>();
    const base = fakeSource(['spam']);
    const describe = (id: string) => base.describe(id).then((d) => ({ ...d, version, batch: 'fixed' as const }));
    const source = {
      ...base,
      describe,
      files: async (id: string) => ({ ...(await base.files(id)), key: `${id}@${version}` }),
      subscribe: (listener: () => void) => (changed.add(listener), () => void changed.delete(listener)),
    };
    lantern = new Lantern({ createWorker, models: source, idleMs: 0 });
    expect((await lantern.classify('spam', text('a'))).version).toBe('1.0.0');
    version = '1.1.0';
    // Not told yet: the descriptor read before still stands.
    expect((await lantern.classify('spam', text('b'))).version).toBe('1.0.0');
    // Told while two batches run and three requests wait: these are still formed as the model
    // takes them (its descriptor says 'fixed': one input per run), then run on the new version.
    const held: (() => void)[] = [];
    log.gate = () => new Promise<void>((resolve) => held.push(resolve));
    const pending = ['c', 'd', 'e', 'f', 'g'].map((t) => lantern!.classify('spam', text(t)));
    await vi.waitFor(() => expect(held).toHaveLength(2));
    for (const listener of changed) listener();
    let settled = false;
    const all = Promise.all(pending).finally(() => (settled = true));
    while (!settled) {
      await vi.waitFor(() => expect(held.length > 0 || settled).toBe(true));
      held.shift()?.();
    }
    expect((await all).map((r) => r.version)).toEqual(['1.0.0', '1.0.0', '1.1.0', '1.1.0', '1.1.0']);
    expect(log.started.flatMap((w) => w.batches).map((b) => `${b.key} ${b.texts.join('')}`)).toEqual([
      'spam@1.0.0 a', 'spam@1.0.0 b', 'spam@1.0.0 c', 'spam@1.0.0 d', 'spam@1.1.0 e', 'spam@1.1.0 f', 'spam@1.1.0 g',
    ]);
  });

  it('retries a request once on a fresh worker when its worker dies mid-batch', async () => {
    const { lantern, log } = setup();
    let crashes = 1;
    const crashOnce = (_: unknown, worker: { die(): void }) => { if (crashes-- > 0) worker.die(); };
    await lantern.classify('spam', text('warm'));
    log.onClassify = crashOnce;
    const result = await lantern.classify('spam', text('ham'), { topK: 1 });
    expect(result).toMatchObject({ predictions: [{ label: 'ham' }], retried: true });
    expect(log.started).toHaveLength(2);
  });

  it('answers on a fresh worker when ONNX Runtime could not start in the first (a download the connection cut), for a request and for load()', async () => {
    for (const ask of ['classify', 'load'] as const) {
      const { lantern, log } = setup();
      log.onLoad = (_key, worker) => {
        if (worker === log.started[0]) throw new RuntimeUnavailableError('ONNX Runtime could not start: Failed to fetch');
      };
      const answer = ask === 'classify' ? await lantern.classify('spam', text('ham')) : await lantern.load('spam');
      expect(answer).toMatchObject(ask === 'classify' ? { predictions: [{ label: 'ham' }, { label: 'other' }], retried: true } : { coldStart: true });
      expect(log.started.map((w) => w.dead)).toEqual([true, false]);
      lantern.dispose();
    }
  });

  it('reports worker memory only for running workers', async () => {
    const { lantern } = setup();
    expect(await lantern.workerMemory()).toEqual([]);
    await lantern.classify('spam', text('a'));
    expect(await lantern.workerMemory()).toEqual([1024]);
  });

  it('tells the backend a worker will choose without starting one', async () => {
    const { lantern, log } = setup();
    const adapter = (isFallbackAdapter: boolean) => ({ requestAdapter: async () => ({ info: { vendor: 'v', architecture: 'a', isFallbackAdapter } }) });
    expect(await lantern.plannedBackend()).toBe('wasm');
    vi.stubGlobal('navigator', { ...navigator, gpu: adapter(false) });
    expect(await lantern.plannedBackend()).toBe('webgpu');
    vi.stubGlobal('navigator', { ...navigator, gpu: adapter(true) });
    expect(await lantern.plannedBackend()).toBe('wasm');
    expect(log.started).toHaveLength(0);
  });
});

describe('Lantern.candidate (the validation gate path)', () => {
  it('runs a candidate under a key of its own, unrecorded, and frees it on close', async () => {
    const { lantern, log, records } = setup();
    const candidate = lantern.candidate(descriptor, async () => ({ key: 'spam@2.0.0', onnx: new ArrayBuffer(8), config: {} }));
    const result = await candidate.classify(text('spam'), { topK: 1 });
    expect(result).toMatchObject({ modelId: 'spam', version: '2.0.0', predictions: [{ label: 'spam' }] });
    const worker = log.started[0]!;
    const [key] = [...worker.loaded];
    expect(key).toMatch(/^candidate:/);
    expect(worker.batches.map((b) => b.key)).toEqual([key]);
    expect(records).toEqual([]);
    await candidate.close();
    expect(worker.loaded.size).toBe(0);
  });

  it('gets the same crash retry as user requests', async () => {
    const { lantern, log } = setup();
    const candidate = lantern.candidate(descriptor, async () => ({ key: 'spam@2.0.0', onnx: new ArrayBuffer(8), config: {} }));
    await candidate.classify(text('warm'));
    let crashes = 1;
    log.onClassify = (_, worker) => { if (crashes-- > 0) worker.die(); };
    await expect(candidate.classify(text('spam'), { topK: 1 })).resolves.toMatchObject({ predictions: [{ label: 'spam' }], retried: true });
    await candidate.close();
  });

  it('queues behind user requests (background priority) and survives a user\'s cancel', async () => {
    const { lantern, log } = setup();
    await lantern.classify('spam', text('warm'));
    const order: string[] = [];
    log.onClassify = (inputs) => order.push(...inputs.map((i) => (i.kind === 'text' ? i.text : '')));
    // Everything below queues while paused, then competes for the one worker.
    lantern.pause();
    const candidate = lantern.candidate(descriptor, async () => ({ key: 'spam@2.0.0', onnx: new ArrayBuffer(8), config: {} }));
    const gate = candidate.classify(text('golden'), { topK: 1 });
    const user = lantern.classify('spam', text('user'), { topK: 1 });
    const cancel = new AbortController();
    const cancelled = lantern.classify('spam', text('cancelled'), { signal: cancel.signal });
    // classify settles its input before queueing: wait until all three are in the queue.
    await vi.waitFor(() => expect(lantern.queueDepth).toBe(3));
    cancel.abort();
    lantern.resume();
    await expect(cancelled).rejects.toThrow(CancelledError);
    await expect(user).resolves.toMatchObject({ predictions: [{ label: 'user' }] });
    await expect(gate).resolves.toMatchObject({ predictions: [{ label: 'golden' }], retried: false });
    expect(order).toEqual(['user', 'golden']);
    await candidate.close();
  });

  it('fails a candidate\'s item with the typed error when the worker refuses it', async () => {
    const { lantern } = setup();
    const candidate = lantern.candidate(descriptor, async () => ({ key: 'spam@2.0.0', onnx: new ArrayBuffer(8), config: {} }));
    await expect(candidate.classify(text(''))).rejects.toThrow(InputError);
    await candidate.close();
  });

  it('fails with WorkerCrashedError when the retry crashes too', async () => {
    const { lantern, log } = setup();
    const candidate = lantern.candidate(descriptor, async () => ({ key: 'spam@2.0.0', onnx: new ArrayBuffer(8), config: {} }));
    await candidate.classify(text('warm'));
    // Every worker, the fresh one of the retry included, dies on its batch.
    log.onClassify = (_, worker) => worker.die();
    await expect(candidate.classify(text('spam'))).rejects.toThrow(WorkerCrashedError);
    // The first attempt's worker and the retry's fresh one.
    expect(log.started).toHaveLength(2);
    await candidate.close();
  });

  it('hands sustained load to backlog workers that split the cores, rests the first, and answers a lone request on it after', async () => {
    const { lantern, log, held } = heldPool({ maxBatch: 1 });
    expect(await lantern.workerThreads()).toEqual([]);
    const answers = Array.from({ length: 12 }, (_, i) => lantern.classify('spam', text(`m${i}`)));
    // A burst: the first worker alone, both of its slots busy.
    await vi.waitFor(() => expect(held).toHaveLength(2));
    expect(log.started).toHaveLength(1);
    expect(log.started[0]!.splitCoresBy).toBe(1);
    expect(await lantern.workerThreads()).toEqual([2]);

    // Busy for the sustained time, and saturated: the backlog workers warm up.
    vi.advanceTimersByTime(SUSTAINED_LOAD_MS);
    held.shift()!();
    await vi.waitFor(() => expect(log.started).toHaveLength(3));
    expect(log.started.slice(1).map((w) => w.splitCoresBy)).toEqual([2, 2]);
    expect(await lantern.workerThreads()).toEqual([2, 1, 1]);
    const [first, ...backlog] = log.started as [FakeInference, FakeInference, FakeInference];
    await vi.waitFor(() => expect(backlog.map((w) => w.batches.length)).toEqual([2, 2]));
    const firstBefore = first.batches.length;

    // While they serve, the first worker rests: whatever it held finishes, nothing new reaches it.
    while (backlog.reduce((n, w) => n + w.batches.length, 0) + firstBefore < 12) {
      held.shift()!();
      await new Promise((r) => setTimeout(r, 0));
    }
    expect(first.batches).toHaveLength(firstBefore);
    while (held.length > 0) held.shift()!();
    expect((await Promise.all(answers)).map((r) => r.predictions[0]!.label)).toEqual(Array.from({ length: 12 }, (_, i) => `m${i}`));

    // The load is over (a pause longer than one within a load): a lone request gets the first worker's threads again.
    log.gate = undefined;
    vi.advanceTimersByTime(LOAD_GAP_MS + 1);
    await lantern.classify('spam', text('lone'));
    expect(first.batches.at(-1)!.texts).toEqual(['lone']);
  });

  it('spreads a batching model\'s batches over the backlog workers, one each, before doubling up', async () => {
    const { lantern, log, held } = heldPool();
    const burst = (name: string) => Array.from({ length: 4 }, (_, i) => lantern.classify('spam', text(`${name}${i}`)));
    const tick = () => new Promise((r) => setTimeout(r, 0));
    // Bursts, each one batch: two fill the first worker's slots, a third waits; after the
    // sustained time the first worker is saturated and the backlog warms.
    const answers = burst('a');
    for (const name of ['b', 'w']) {
      await tick();
      answers.push(...burst(name));
    }
    await vi.waitFor(() => expect(held).toHaveLength(2));
    vi.advanceTimersByTime(SUSTAINED_LOAD_MS);
    held.shift()!();
    await vi.waitFor(() => expect(log.started).toHaveLength(3));
    await vi.waitFor(() => expect(lantern.workerThreads()).resolves.toEqual([2, 1, 1]));
    while (held.length > 0) held.shift()!();

    const [, ...backlog] = log.started as [FakeInference, FakeInference, FakeInference];
    answers.push(...burst('c'));
    await tick();
    answers.push(...burst('d'));
    await vi.waitFor(() => expect(backlog.map((w) => w.batches.map((b) => b.texts[0]))).toEqual([['c0'], ['d0']]));
    log.gate = undefined;
    while (held.length > 0) held.shift()!();
    expect(await Promise.all(answers)).toHaveLength(20);
  });
});
