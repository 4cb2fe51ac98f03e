import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CancelledError, RuntimeUnavailableError, WorkerCrashedError } from './errors.ts';
import type { KeptOrtWasm } from './ort-cache.ts';
import { ABANDONED_CALL_LIMIT_MS, WorkerClient } from './worker-client.ts';
import { fakeWorkers, stubNavigatorLocks } from './worker.test-helpers.ts';

/** WorkerClient over real comlink on MessageChannels, with fake workers (worker.test-helpers.ts). */
let client: WorkerClient | undefined;
beforeEach(stubNavigatorLocks);
afterEach(() => {
  client?.dispose();
  client = undefined;
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

function setup(idleMs = 0, keptOrtWasm?: () => Promise<KeptOrtWasm | undefined>) {
  const { createWorker, log } = fakeWorkers();
  const stuck: string[] = [];
  client = new WorkerClient({ createWorker, backend: 'auto', splitCoresBy: 1, idleMs, onStuck: (key) => stuck.push(key), ...(keptOrtWasm ? { keptOrtWasm } : {}) });
  return { client, log, stuck };
}

/** Fake timers and the clock the idle timer reads (performance.now()). */
const useFakeClock = () => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });

/** The worker still runs `ms` - 1 from now, and has stopped at `ms`. */
function expectStopsAfter(client: WorkerClient, ms: number): void {
  vi.advanceTimersByTime(ms - 1);
  expect(client.running).toBe(true);
  vi.advanceTimersByTime(1);
  expect(client.running).toBe(false);
}

const files = (key: string) => () => Promise.resolve({ key, onnx: new ArrayBuffer(4), config: {} });
const text = (t: string) => ({ kind: 'text' as const, text: t });

describe('WorkerClient', () => {
  it('starts no worker until a call needs one', async () => {
    const { client, log } = setup();
    expect(client.running).toBe(false);
    expect(await client.wasmMemory()).toBeNull();
    await client.unload('nothing@1');
    expect(log.started).toHaveLength(0);
    await client.device();
    expect(client.running).toBe(true);
    expect(log.started).toHaveLength(1);
  });

  it('loads a key once (concurrent callers share the load) and reports which call was cold', async () => {
    const { client, log } = setup();
    const read = vi.fn(files('m@1'));
    const [a, b] = await Promise.all([client.ensureLoaded('m@1', read), client.ensureLoaded('m@1', read)]);
    expect([a.cold, b.cold].sort()).toEqual([false, true]);
    expect(read).toHaveBeenCalledTimes(1);
    expect([...log.started[0]!.loaded]).toEqual(['m@1']);
    await client.unload('m@1');
    expect(log.started[0]!.loaded.size).toBe(0);
    expect((await client.ensureLoaded('m@1', read)).cold).toBe(true);
  });

  it('replaces a worker whose ORT could not start: the error reaches the caller, the next call starts afresh', async () => {
    const { client, log } = setup();
    log.onLoad = () => {
      throw new RuntimeUnavailableError('ONNX Runtime could not start: the wasm did not arrive');
    };
    await expect(client.ensureLoaded('m@1', files('m@1'))).rejects.toBeInstanceOf(RuntimeUnavailableError);
    expect(client.running).toBe(false);
    log.onLoad = undefined;
    expect((await client.ensureLoaded('m@1', files('m@1'))).cold).toBe(true);
    expect(log.started).toHaveLength(2);
  });

  it('turns a worker death into WorkerCrashedError for the calls in flight, then starts a fresh worker', async () => {
    const { client, log } = setup();
    await client.ensureLoaded('m@1', files('m@1'));
    log.onClassify = (_, worker) => worker.die();
    const error = await client.classify('m@1', [text('a')], 1).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkerCrashedError);
    expect((error as Error).message).toMatch(/the worker stopped unexpectedly/);
    expect(client.running).toBe(false);
    log.onClassify = undefined;
    // The fresh worker has nothing loaded: the next load is cold again.
    expect((await client.ensureLoaded('m@1', files('m@1'))).cold).toBe(true);
    expect(log.started).toHaveLength(2);
  });

  it('cancels without a cold start: CancelledError at once, the worker and its session stay', async () => {
    const { client, log } = setup();
    await client.ensureLoaded('m@1', files('m@1'));
    const controller = new AbortController();
    const running = client.classify('m@1', [text('a')], 1, controller.signal);
    controller.abort();
    await expect(running).rejects.toThrow(CancelledError);
    expect(client.running).toBe(true);
    await expect(client.classify('m@1', [text('b')], 1)).resolves.toMatchObject({ items: [{ ok: true }] });
    expect(log.started).toHaveLength(1);
    expect(log.started[0]!.loaded.has('m@1')).toBe(true);
    await expect(client.classify('m@1', [text('a')], 1, controller.signal)).rejects.toThrow(CancelledError);
  });

  it('restarts a worker that an abandoned call keeps busy past the limit, not before, and says which session hung it', async () => {
    useFakeClock();
    const { client, log, stuck } = setup();
    await client.ensureLoaded('m@1', files('m@1'));
    const controller = new AbortController();
    // A batch that never finishes: only a restart frees the worker.
    log.onClassify = (_, worker) => { worker.dead = true; };
    const running = client.classify('m@1', [text('a')], 1, controller.signal);
    controller.abort();
    await expect(running).rejects.toThrow(CancelledError);
    expect(stuck).toEqual([]);
    expectStopsAfter(client, ABANDONED_CALL_LIMIT_MS);
    expect(stuck).toEqual(['m@1']);
  });

  it('restarts for an abandoned call only once no wanted call is ahead of it in the worker', async () => {
    useFakeClock();
    const { client, log, stuck } = setup();
    await client.ensureLoaded('m@1', files('m@1'));
    const held: (() => void)[] = [];
    log.gate = () => new Promise<void>((resolve) => held.push(resolve));
    const wanted = client.classify('m@1', [text('long')], 1);
    const controller = new AbortController();
    const abandoned = client.classify('m@1', [text('gone')], 1, controller.signal);
    await vi.waitFor(() => expect(held).toHaveLength(2));
    controller.abort();
    await expect(abandoned).rejects.toThrow(CancelledError);
    // The wanted call ahead runs long (a large model on a slow device): no restart under it.
    vi.advanceTimersByTime(2 * ABANDONED_CALL_LIMIT_MS);
    expect(client.running).toBe(true);
    held[0]!();
    await expect(wanted).resolves.toMatchObject({ items: [{ ok: true }] });
    // Now the abandoned call is the oldest, and still busy a limit later: the worker restarts.
    expectStopsAfter(client, ABANDONED_CALL_LIMIT_MS);
    expect(log.started).toHaveLength(1);
    expect(stuck).toEqual(['m@1']);
  });

  it('stops an idle worker after idleMs, not before', async () => {
    useFakeClock();
    const { client, log } = setup(60_000);
    await client.ensureLoaded('m@1', files('m@1'));
    expectStopsAfter(client, 60_000);
    expect(log.started[0]!.dead).toBe(true);
  });

  it('counts idleMs from the last call, however many came before it', async () => {
    useFakeClock();
    const { client, log } = setup(60_000);
    await client.ensureLoaded('m@1', files('m@1'));
    vi.advanceTimersByTime(30_000);
    await client.classify('m@1', [text('a')], 1);
    expectStopsAfter(client, 60_000);
    // A worker started after that one idles out too.
    await client.ensureLoaded('m@1', files('m@1'));
    expect(log.started).toHaveLength(2);
    vi.advanceTimersByTime(60_000);
    expect(client.running).toBe(false);
  });

  it('does not stop a worker in the middle of a call, and stops it idleMs after the call ends', async () => {
    useFakeClock();
    const { client, log } = setup(60_000);
    await client.ensureLoaded('m@1', files('m@1'));
    let answer!: () => void;
    const running = new Promise<void>((started) => {
      log.gate = () => {
        started();
        return new Promise<void>((resolve) => (answer = resolve));
      };
    });
    const call = client.classify('m@1', [text('a')], 1);
    await running;
    vi.advanceTimersByTime(120_000);
    expect(client.running).toBe(true);
    answer();
    await call;
    expectStopsAfter(client, 60_000);
  });

  it('is not kept alive by a screen that polls its memory and threads', async () => {
    useFakeClock();
    const { client } = setup(60_000);
    await client.ensureLoaded('m@1', files('m@1'));
    for (let second = 5; second < 60; second += 5) {
      vi.advanceTimersByTime(5_000);
      expect(await client.wasmMemory()).toEqual(expect.any(Number));
      expect(await client.threads()).toBe(2);
    }
    vi.advanceTimersByTime(5_000);
    expect(client.running).toBe(false);
    expect(await client.wasmMemory()).toBeNull();
    expect(await client.threads()).toBeNull();
  });

  it('answers null, not an error, when the worker dies while it is asked', async () => {
    const { client, log } = setup();
    await client.ensureLoaded('m@1', files('m@1'));
    log.started[0]!.dead = true;
    const asked = client.wasmMemory();
    client.dispose();
    expect(await asked).toBeNull();
  });

  it('hands a starting worker the ORT wasm the page read, moved rather than copied', async () => {
    const kept = { url: 'https://app.test/assets/ort-wasm-simd-threaded-abc.wasm', bytes: new ArrayBuffer(8) };
    const { client, log } = setup(0, () => Promise.resolve(kept));
    await client.device();
    expect(log.started[0]!.wasm?.url).toBe(kept.url);
    expect(log.started[0]!.wasm?.bytes.byteLength).toBe(8);
    expect(kept.bytes.byteLength).toBe(0);
  });

  it('starts the worker without the wasm when the page cannot read it', async () => {
    const { client, log } = setup(0, () => Promise.reject(new Error('storage refused')));
    expect((await client.device()).ortVersion).toBe('test');
    expect(log.started[0]!.wasm).toBeUndefined();
  });

  it('gives up on a worker that never answers init', async () => {
    useFakeClock();
    const { client, log } = setup();
    const started = client.device();
    // The worker hangs in init (e.g. a wasm compile that never ends).
    log.started[0]!.dead = true;
    const outcome = expect(started).rejects.toThrow(new RuntimeUnavailableError('The inference worker could not start: it did not answer within 30 s.'));
    vi.advanceTimersByTime(30_000);
    await outcome;
  });

  it('says the runtime is unavailable, typed, when the worker cannot be created or its script fails before it answers', async () => {
    // Trusted Types (or a CSP) refusing the worker's script URL: the Worker constructor throws.
    const refusing = new WorkerClient({ createWorker: () => { throw new TypeError('This document requires \'TrustedScriptURL\' assignment.'); }, backend: 'auto', splitCoresBy: 1, idleMs: 0 });
    await expect(refusing.device()).rejects.toThrow(new RuntimeUnavailableError('The inference worker could not be created: This document requires \'TrustedScriptURL\' assignment.'));
    refusing.dispose();
    // A script that does not load (offline, with no copy kept): the worker's error event comes before any answer.
    const { port1 } = new MessageChannel();
    client = new WorkerClient({ createWorker: () => Object.assign(port1, { terminate: () => port1.close() }) as unknown as Worker, backend: 'auto', splitCoresBy: 1, idleMs: 0 });
    const started = client.device();
    port1.dispatchEvent(new Event('error'));
    await expect(started).rejects.toThrow(new RuntimeUnavailableError('The inference worker could not start: its script did not load (offline with no copy kept, or blocked).'));
    expect(client.running).toBe(false);
  });
});
