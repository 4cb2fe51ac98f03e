import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CancelledError, InputError, LanternError, TimeoutError, WorkerCrashedError } from './errors.ts';
import { Lantern, type RequestRecord } from './lantern.ts';
import type { FetchOptions, ModelDescriptor, ModelSource } from './model-source.ts';
import { ABANDONED_CALL_LIMIT_MS } from './worker-client.ts';
import { fakeSource, fakeWorkers, stubNavigatorLocks } from './worker.test-helpers.ts';

/**
 * What cancelling, disposing and failing do to everything else in flight: other callers sharing
 * an install or a session load, the other requests of a batch, healthy work queued in the same
 * worker, a candidate's session, timers. Lantern over real WorkerClients and comlink, with fake
 * workers on MessageChannels (worker.test-helpers.ts).
 */
let lantern: Lantern | undefined;
beforeEach(stubNavigatorLocks);
afterEach(() => {
  lantern?.dispose();
  lantern = undefined;
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

const text = (t: string) => ({ kind: 'text' as const, text: t });
const tick = () => new Promise((r) => setTimeout(r, 0));

function setup(source: ModelSource = fakeSource(['spam']), extra: Partial<ConstructorParameters<typeof Lantern>[0]> = {}) {
  const { createWorker, log } = fakeWorkers();
  lantern = new Lantern({ createWorker, models: source, idleMs: 0, backlogWorkers: 0, ...extra });
  return { lantern, log };
}

const desc = (id: string): ModelDescriptor => ({ id, version: '1.0.0', title: id, task: 'text-classification', batch: 'dynamic', labels: [], sizeBytes: 0, samples: [], signed: true });

/** Rejects with CancelledError when `signal` aborts, as the store's downloads do (net.ts). */
function abortable(signal: AbortSignal | undefined, until: Promise<void>): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(new CancelledError('The download was cancelled.'));
    signal?.addEventListener('abort', () => reject(new CancelledError('The download was cancelled.')), { once: true });
    void until.then(resolve);
  });
}

describe('dispose()', () => {
  it('fails a running request with WorkerCrashedError instead of retrying it on a fresh worker', async () => {
    const { lantern, log } = setup();
    await lantern.classify('spam', text('warm'));
    let release!: () => void;
    log.gate = () => new Promise<void>((r) => (release = r));
    const running = lantern.classify('spam', text('a'));
    await vi.waitFor(() => expect(release).toBeDefined());
    log.gate = undefined;
    lantern.dispose();
    const outcome = await running.then((r) => r, (e: unknown) => e);
    // docs/API.md: "dispose(): stops the workers; pending requests fail with WorkerCrashedError."
    expect(outcome).toBeInstanceOf(WorkerCrashedError);
    // ...and no worker is running after dispose().
    expect(log.started.filter((w) => !w.dead)).toHaveLength(0);
  });

  it('fails queued requests too, and later ones, and starts no worker for them', async () => {
    const { lantern, log } = setup();
    await lantern.classify('spam', text('warm'));
    lantern.pause();
    const queued = lantern.classify('spam', text('q'));
    await vi.waitFor(() => expect(lantern.queueDepth).toBe(1));
    lantern.dispose();
    lantern.resume();
    await expect(queued).rejects.toBeInstanceOf(WorkerCrashedError);
    await expect(lantern.classify('spam', text('later'))).rejects.toBeInstanceOf(WorkerCrashedError);
    await expect(lantern.load('spam')).rejects.toBeInstanceOf(WorkerCrashedError);
    expect(log.started.filter((w) => !w.dead)).toHaveLength(0);
  });
});

describe('a model install shared by concurrent callers, each with its own signal', () => {
  /** A source whose install (prepare) downloads until `finish`, honouring its signal as the store does. */
  function slowSource() {
    let finish!: () => void;
    const done = new Promise<void>((r) => (finish = r));
    let installed = false;
    const installSignals: AbortSignal[] = [];
    const source: ModelSource = {
      list: async () => [desc('m')],
      describe: async (id) => {
        if (!installed) throw new Error('not installed');
        return desc(id);
      },
      prepare: async (_id, options: FetchOptions = {}) => {
        if (installed) return;
        installSignals.push(options.signal!);
        options.onProgress?.({ phase: 'download', loadedBytes: 1, totalBytes: 2 });
        await abortable(options.signal, done);
        installed = true;
      },
      files: async (id) => ({ key: `${id}@1.0.0`, onnx: new ArrayBuffer(8), config: {} }),
    };
    return { source, finish, installSignals };
  }

  it('a request\'s deadline holds while its model installs: TimeoutError at the deadline, the install going on for the callers still waiting', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const { source, finish, installSignals } = slowSource();
    const { lantern } = setup(source);
    let outcome: unknown;
    const late = lantern.classify('m', text('a'), { timeoutMs: 100 }).catch((e: unknown) => (outcome = e));
    const patient = lantern.classify('m', text('b'));
    await vi.advanceTimersByTimeAsync(99);
    expect(outcome).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    await late;
    expect(outcome).toBeInstanceOf(TimeoutError);
    expect((outcome as TimeoutError).message).toMatch(/while its model was being made ready/);
    expect(installSignals.map((signal) => signal.aborted)).toEqual([false]);
    finish();
    expect((await patient).predictions[0]?.label).toBe('b');
  });

  it('one caller aborting does not cancel another caller that shares the install', async () => {
    const { source, finish, installSignals } = slowSource();
    const { lantern } = setup(source);
    const a = new AbortController();
    const first = lantern.classify('m', text('a'), { signal: a.signal });
    const second = lantern.classify('m', text('b')); // no signal: never cancelled
    await tick();
    a.abort();
    await expect(first).rejects.toBeInstanceOf(CancelledError);
    expect(installSignals.map((s) => s.aborted)).toEqual([false]);
    finish();
    // B never aborted: A's cancel is A's alone.
    await expect(second).resolves.toMatchObject({ predictions: [expect.objectContaining({ label: 'b' }), expect.anything()] });
  });

  it('a caller that joins a pending install cancels its own request before the install ends', async () => {
    const { source, finish } = slowSource();
    const { lantern } = setup(source);
    const first = lantern.classify('m', text('a')); // starts the install, no signal
    const b = new AbortController();
    const second = lantern.classify('m', text('b'), { signal: b.signal });
    await tick();
    b.abort();
    // Settles now: the install has not finished (it would wait for ever without finish()).
    await expect(second).rejects.toBeInstanceOf(CancelledError);
    finish();
    await expect(first).resolves.toMatchObject({ modelId: 'm' });
  });

  it('load() joining a pending install hears its progress and can be cancelled before it ends', async () => {
    const { source, finish } = slowSource();
    const { lantern } = setup(source);
    const first = lantern.classify('m', text('a'));
    const b = new AbortController();
    const progress: string[] = [];
    const loading = lantern.load('m', { signal: b.signal, onProgress: (p) => progress.push(p.phase) });
    await tick();
    expect(progress).toEqual(['download']);
    b.abort();
    await expect(loading).rejects.toBeInstanceOf(CancelledError);
    finish();
    await expect(first).resolves.toMatchObject({ modelId: 'm' });
  });

  it('stops the install once every caller has cancelled, and a later request installs afresh', async () => {
    const { source, finish, installSignals } = slowSource();
    const { lantern } = setup(source);
    const a = new AbortController();
    const b = new AbortController();
    const requests = [lantern.classify('m', text('a'), { signal: a.signal }), lantern.load('m', { signal: b.signal })];
    await tick();
    a.abort();
    b.abort();
    for (const request of requests) await expect(request).rejects.toBeInstanceOf(CancelledError);
    expect(installSignals.map((s) => s.aborted)).toEqual([true]);
    const again = lantern.classify('m', text('c'));
    await tick();
    expect(installSignals).toHaveLength(2);
    finish();
    await expect(again).resolves.toMatchObject({ modelId: 'm' });
  });
});

describe('a session load shared by concurrent callers, each with its own signal', () => {
  it('aborting load() does not fail a concurrent classify that shares the load (a source honouring the signal, like FolderModelSource)', async () => {
    let finish!: () => void;
    const done = new Promise<void>((r) => (finish = r));
    const source: ModelSource = {
      list: async () => [desc('m')],
      describe: async (id) => desc(id),
      files: async (id, options: FetchOptions = {}) => {
        await abortable(options.signal, done);
        return { key: `${id}@1.0.0`, onnx: new ArrayBuffer(8), config: {} };
      },
    };
    const { lantern } = setup(source);
    const controller = new AbortController();
    const loading = lantern.load('m', { signal: controller.signal });
    await tick();
    const request = lantern.classify('m', text('b')); // joins the load
    await tick();
    await tick();
    controller.abort();
    await expect(loading).rejects.toBeInstanceOf(CancelledError);
    finish();
    await expect(request).resolves.toMatchObject({ predictions: [expect.objectContaining({ label: 'b' }), expect.anything()] });
  });
});

describe('cancellation of one request in a batch', () => {
  it('a request cancelled while its batch waits for the model is not sent, and the others are answered', async () => {
    // Browser semantics: posting a closed ImageBitmap throws DataCloneError. Here close() makes
    // the fake bitmap uncloneable the same way (a function property).
    class FakeBitmap {
      width = 2;
      height = 2;
      closed = false;
      detached?: () => void;
      close() {
        this.closed = true;
        this.detached = () => undefined;
      }
    }
    class FakeOffscreenCanvas {}
    vi.stubGlobal('OffscreenCanvas', FakeOffscreenCanvas);
    vi.stubGlobal('createImageBitmap', async () => new FakeBitmap());
    let finish!: () => void;
    const done = new Promise<void>((r) => (finish = r));
    const source: ModelSource = {
      list: async () => [desc('m')],
      describe: async (id) => desc(id),
      files: async (id) => {
        await done; // a cold start: the batch waits for its model
        return { key: `${id}@1.0.0`, onnx: new ArrayBuffer(8), config: {} };
      },
    };
    const { lantern } = setup(source);
    await lantern.models();
    lantern.pause();
    const controller = new AbortController();
    const image = lantern.classify('m', new FakeOffscreenCanvas() as unknown as OffscreenCanvas, { signal: controller.signal });
    const words = lantern.classify('m', text('b'));
    await vi.waitFor(() => expect(lantern.queueDepth).toBe(2));
    lantern.resume();
    await tick();
    controller.abort(); // while the batch of two waits for the model
    await expect(image).rejects.toBeInstanceOf(CancelledError);
    finish();
    await expect(words).resolves.toMatchObject({ predictions: [expect.objectContaining({ label: 'b' }), expect.anything()] });
  });
});

describe('an input the browser cannot copy to the worker', () => {
  it('fails alone, as an InputError: the rest of its batch answers, and nothing counts against the version', async () => {
    class FakeOffscreenCanvas {}
    vi.stubGlobal('OffscreenCanvas', FakeOffscreenCanvas);
    // A snapshot with a function property: postMessage throws DataCloneError, as a browser's does
    // for an object it cannot clone that the page's checks (inputs.ts) do not know.
    vi.stubGlobal('createImageBitmap', async () => ({ width: 2, height: 2, close: () => undefined }));
    const records: RequestRecord[] = [];
    const { lantern, log } = setup(fakeSource(['m']), { onRecord: (record) => records.push(record) });
    await lantern.classify('m', text('warm'));
    lantern.pause();
    const answers = [lantern.classify('m', text('a')), lantern.classify('m', new FakeOffscreenCanvas() as unknown as OffscreenCanvas), lantern.classify('m', text('b'))]
      .map((answer) => answer.catch((e: unknown) => e));
    await vi.waitFor(() => expect(lantern.queueDepth).toBe(3));
    lantern.resume();
    const [a, image, b] = await Promise.all(answers);
    expect(a).toMatchObject({ predictions: [expect.objectContaining({ label: 'a' }), expect.anything()] });
    expect(b).toMatchObject({ predictions: [expect.objectContaining({ label: 'b' }), expect.anything()] });
    expect(image).toBeInstanceOf(InputError);
    expect((image as InputError).details).toEqual({ reason: 'unsupported-input' });
    expect(records.filter((r) => !r.ok).map((r) => !r.ok && r.errorCode)).toEqual(['INPUT']);
    // The same worker answered: sending failed, nothing crashed.
    expect(log.started).toHaveLength(1);
  });
});

describe('why a request was cancelled', () => {
  it('is the CancelledError\'s cause: the reason its signal was aborted with (an AbortSignal.timeout\'s TimeoutError)', async () => {
    const { lantern } = setup();
    const timedOut = new DOMException('The operation timed out.', 'TimeoutError');
    const before = await lantern.classify('spam', text('a'), { signal: AbortSignal.abort(timedOut) }).catch((e: unknown) => e);
    expect(before).toBeInstanceOf(CancelledError);
    expect((before as Error).cause).toBe(timedOut);
    lantern.pause();
    const controller = new AbortController();
    const queued = lantern.classify('spam', text('b'), { signal: controller.signal }).catch((e: unknown) => e);
    const reason = new Error('the user left the screen');
    controller.abort(reason);
    expect(((await queued) as Error).cause).toBe(reason);
  });
});

describe('restart of a worker kept busy by an abandoned call', () => {
  it('does not kill a healthy batch that the abandoned one was only waiting behind', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const { lantern, log } = setup();
    await lantern.classify('spam', text('warm'));
    // Batches run one after another in a worker (one session lane): the first one is long.
    const holds: (() => void)[] = [];
    log.gate = () => new Promise<void>((r) => holds.push(r));
    const healthy = lantern.classify('spam', text('long'));
    await vi.waitFor(() => expect(holds).toHaveLength(1));
    const controller = new AbortController();
    const abandoned = lantern.classify('spam', text('cancelled'), { signal: controller.signal });
    await vi.waitFor(() => expect(log.started[0]!.batches).toHaveLength(3));
    controller.abort();
    await expect(abandoned).rejects.toBeInstanceOf(CancelledError);
    // The healthy run takes 12 s (e.g. a large image model on a slow device).
    vi.advanceTimersByTime(ABANDONED_CALL_LIMIT_MS + 2_000);
    log.gate = undefined;
    holds.forEach((r) => r());
    const result = await healthy;
    // It was answered by the first worker, not retried on a fresh (cold) one.
    expect(result.retried).toBe(false);
    expect(log.started).toHaveLength(1);
  });
});

describe('a model version that hangs a worker', () => {
  /** Runs `classify` on a worker that never answers it, gives up on it, and waits out the restart limit. */
  async function hangAndGiveUp(log: ReturnType<typeof setup>['log'], classify: (signal: AbortSignal) => Promise<unknown>): Promise<void> {
    let reached = false;
    // A run that never ends (a pathological input): only a restart frees the worker.
    log.onClassify = (_, worker) => {
      reached = true;
      worker.dead = true;
    };
    const controller = new AbortController();
    const hung = classify(controller.signal);
    await vi.waitFor(() => expect(reached).toBe(true));
    controller.abort();
    await expect(hung).rejects.toBeInstanceOf(CancelledError);
    vi.advanceTimersByTime(ABANDONED_CALL_LIMIT_MS);
    log.onClassify = undefined;
  }

  it('is named to onStuck (id@version) when the worker is restarted for its abandoned run', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const stuck: string[] = [];
    const { lantern, log } = setup(fakeSource(['spam']), { onStuck: (key) => stuck.push(key) });
    await lantern.classify('spam', text('warm'));
    await hangAndGiveUp(log, (signal) => lantern.classify('spam', text('hangs'), { signal }));
    expect(stuck).toEqual(['spam@1.0.0']);
    // The next request starts a fresh worker and is answered.
    await expect(lantern.classify('spam', text('after'))).resolves.toMatchObject({ version: '1.0.0' });
    expect(log.started).toHaveLength(2);
  });

  it('a request given runTimeoutMs fails with TimeoutError once its run took that long (no one cancels it), and its worker is restarted for the next', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const stuck: string[] = [];
    const { lantern, log } = setup(fakeSource(['spam']), { onStuck: (key) => stuck.push(key) });
    await lantern.classify('spam', text('warm'));
    let reached = false;
    log.onClassify = (_, worker) => {
      reached = true;
      worker.dead = true;
    };
    let outcome: unknown;
    const hung = lantern.classify('spam', text('hangs'), { runTimeoutMs: 60_000 }).catch((e: unknown) => (outcome = e));
    await vi.waitFor(() => expect(reached).toBe(true));
    // (waitFor moves the fake clock on a little while it polls.)
    await vi.advanceTimersByTimeAsync(55_000);
    expect(outcome).toBeUndefined();
    await vi.advanceTimersByTimeAsync(5_000);
    await hung;
    expect(outcome).toBeInstanceOf(TimeoutError);
    await vi.advanceTimersByTimeAsync(ABANDONED_CALL_LIMIT_MS);
    log.onClassify = undefined;
    expect(stuck).toEqual(['spam@1.0.0']);
    await expect(lantern.classify('spam', text('after'))).resolves.toMatchObject({ version: '1.0.0' });
    expect(log.started).toHaveLength(2);
  });

  it('a candidate\'s hang is not an installed version\'s: onStuck does not hear it', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const stuck: string[] = [];
    const { lantern, log } = setup(fakeSource(['spam']), { onStuck: (key) => stuck.push(key) });
    await lantern.classify('spam', text('warm'));
    const candidate = lantern.candidate(desc('spam'), async () => ({ key: 'spam@2.0.0', onnx: new ArrayBuffer(8), config: {} }));
    await hangAndGiveUp(log, (signal) => candidate.classify(text('hangs'), { signal }));
    expect(stuck).toEqual([]);
  });
});

describe('typed errors at the front door', () => {
  it('an unknown error thrown in the worker reaches the caller as a LanternError (docs: every failure is one), the original as its cause', async () => {
    const { lantern, log } = setup();
    await lantern.classify('spam', text('warm'));
    log.onClassify = () => {
      throw new RangeError('ORT: offset is out of bounds');
    };
    const error = await lantern.classify('spam', text('a')).catch((e: unknown) => e) as LanternError;
    expect(error).toBeInstanceOf(LanternError);
    expect(error.code).toBe('INTERNAL');
    expect(error.cause).toMatchObject({ name: 'RangeError', message: 'ORT: offset is out of bounds' });
  });
});

describe('CandidateRun.close() racing a run (ShadowRunner.refresh closes runs without waiting for them)', () => {
  it('leaves no candidate session in the worker once the run in flight ends', async () => {
    const { lantern, log } = setup();
    await lantern.classify('spam', text('warm'));
    let finish!: () => void;
    const done = new Promise<void>((r) => (finish = r));
    const candidate = lantern.candidate(desc('spam'), async () => {
      await done; // the candidate's files are still being read (re-verified) when close() comes
      return { key: 'spam@2.0.0', onnx: new ArrayBuffer(8), config: {} };
    });
    const run = candidate.classify(text('x'));
    await tick();
    await candidate.close();
    finish();
    await run.catch(() => undefined);
    await lantern.whenIdle();
    const worker = log.started[0]!;
    expect([...worker.loaded].filter((k) => k.startsWith('candidate:'))).toEqual([]);
  });
});

describe('timers after dispose()', () => {
  it('leaves no timer running once disposed (a cancelled run\'s restart timer included)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const { lantern, log } = setup(fakeSource(['spam']), { idleMs: 60_000 });
    await lantern.classify('spam', text('warm'));
    log.gate = () => new Promise<void>(() => undefined); // a run that never ends
    const controller = new AbortController();
    const running = lantern.classify('spam', text('a'), { signal: controller.signal });
    await vi.waitFor(() => expect(log.started[0]!.batches).toHaveLength(2));
    controller.abort();
    await expect(running).rejects.toBeInstanceOf(CancelledError);
    lantern.dispose();
    expect(vi.getTimerCount()).toBe(0);
  });
});


describe('the longest deadlines and idle times an app may give (past setTimeout\'s 32-bit limit)', () => {
  it.each([Infinity, Number.MAX_SAFE_INTEGER, 30 * 24 * 3600_000])('timeoutMs %d does not expire at once: a request that takes a while answers', async (timeoutMs) => {
    const { lantern, log } = setup();
    await lantern.classify('spam', text('warm'));
    let letGo!: () => void;
    log.gate = () => new Promise<void>((resolve) => (letGo = resolve));
    const answer = lantern.classify('spam', text('hello'), { timeoutMs });
    await vi.waitFor(() => expect(letGo).toBeDefined());
    // Turns of the event loop in which a timer that overflowed would have fired.
    await new Promise((resolve) => setTimeout(resolve, 5));
    letGo();
    expect((await answer).predictions[0]?.label).toBe('hello');
  });

  it('idleMs Infinity keeps the worker running, with no timer left waking the page (one that overflowed fired every millisecond)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const { lantern, log } = setup(fakeSource(['spam']), { idleMs: Infinity });
    await lantern.classify('spam', text('warm'));
    vi.advanceTimersByTime(1_000);
    expect(vi.getTimerCount()).toBe(0);
    await lantern.classify('spam', text('again'));
    expect(log.started).toHaveLength(1);
  });
});
