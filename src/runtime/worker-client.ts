import { proxy, transfer, wrap, type Remote } from 'comlink';
import type { BackendPreference } from './backend.ts';
import { installErrorTransfer } from './error-transfer.ts';
import { cancelledBy, RuntimeUnavailableError, WorkerCrashedError } from './errors.ts';
import type { LoadProgress } from './model-source.ts';
import type { KeptOrtWasm } from './ort-cache.ts';
import type { BatchReport, ClassifyInput, DeviceReport, InferenceWorkerApi, LoadReport, ModelFiles, WasmMemoryReading } from './protocol.ts';
import { SharedWork, type JoinOptions } from './shared-work.ts';
import { after } from './timer.ts';

export type { BatchReport, ClassifyInput, DeviceReport, LoadReport, ModelFiles, WasmMemoryReading };

/** A worker that has not answered init by then is treated as dead (init only probes the device). */
const START_TIMEOUT_MS = 30_000;
/**
 * How long an abandoned call (every request in it cancelled or past its deadline) may keep the
 * worker busy, once no call before it is left, before the worker is taken for stuck and
 * restarted. Runs take milliseconds to seconds: a second click never waits this long, a hung
 * model does not hold the queue forever.
 */
export const ABANDONED_CALL_LIMIT_MS = 10_000;

export interface WorkerClientOptions {
  /** Creates the worker; `name` must be passed to the Worker constructor (liveness lock). */
  createWorker: (name: string) => Worker;
  backend: BackendPreference;
  /** Workers sharing the cores, to split WASM threads between them. */
  splitCoresBy: number;
  /** Shut an unused worker down after this long, freeing its memory (0 = never). */
  idleMs: number;
  /** WASM threads of this worker; by default the cores split `splitCoresBy` ways. */
  threads?: number | undefined;
  /**
   * Reads the ORT wasm this device keeps, to hand a starting worker: the read overlaps the
   * worker script's load instead of following ORT's init in the worker.
   */
  keptOrtWasm?: () => Promise<KeptOrtWasm | undefined>;
  /** Hears the decoded bytes of ORT's wasm as this worker downloads it (when no copy is kept). */
  onRuntimeDownload?: ((loadedBytes: number) => void) | undefined;
  /**
   * Hears the session key of a run the worker was restarted for: abandoned, it kept the worker
   * busy ABANDONED_CALL_LIMIT_MS more (a model that hangs on some input, or a graph that runs
   * without end). The requests in it were already settled (cancelled, or past their deadline).
   */
  onStuck?: ((key: string) => void) | undefined;
}

/** `unavailable`: it died before its init answered (its script did not load, or ORT could not start). */
type StopReason = 'idle' | 'stuck' | 'crashed' | 'unavailable' | 'disposed';

/** A call the worker has not finished. */
interface Call {
  /** Every request in it was cancelled or is past its deadline: its answer will be dropped. */
  abandoned: boolean;
  /** The session a classification runs on (undefined for loads and device reports). */
  key: string | undefined;
  stuckTimer?: ReturnType<typeof setTimeout>;
}

interface LiveWorker {
  name: string;
  worker: Worker;
  remote: Remote<InferenceWorkerApi>;
  device: Promise<DeviceReport>;
  /** Init answered: ORT runs here. A death before that means the runtime could not start at all. */
  started: boolean;
  startTimer?: ReturnType<typeof setTimeout>;
  /** Sessions this worker holds, by key. */
  loaded: Map<string, LoadReport>;
  /** Sessions being loaded: concurrent callers share one load, each with its own signal. */
  loading: SharedWork<LoadReport, LoadProgress>;
  inFlight: Set<(error: Error) => void>;
  /** Calls the worker is still executing, abandoned ones included, oldest first (a Set keeps insertion order). */
  calls: Set<Call>;
  dead: boolean;
}

/**
 * Page side of one inference worker: starts it lazily, shuts it down when idle, and turns any
 * death into WorkerCrashedError for the calls in flight, or RuntimeUnavailableError when it died
 * before it ever answered (the next call starts a fresh worker).
 * ORT cannot interrupt a run, and restarting the worker would cost the next request a cold start:
 * a cancelled call settles at once and the worker's answer is dropped when it comes. Only a
 * worker still busy with an abandoned call after ABANDONED_CALL_LIMIT_MS is restarted.
 */
export class WorkerClient {
  private live?: LiveWorker;
  /** Cancels the idle timer while it runs. */
  private idleTimer?: () => void;
  /** When the last call ended (performance.now()); the idle timer runs until idleMs have passed since. */
  private lastUse = 0;
  private disposed = false;

  constructor(private readonly options: WorkerClientOptions) {
    installErrorTransfer();
  }

  private start(): LiveWorker {
    if (this.live && !this.live.dead) return this.live;
    if (this.disposed) throw new WorkerCrashedError('This Lantern was disposed.');
    const name = `lantern-inference-${crypto.randomUUID()}`;
    let worker: Worker;
    try {
      worker = this.options.createWorker(name);
    } catch (error) {
      // A Content Security Policy or Trusted Types refusing the worker's script: typed, like every outside error.
      throw new RuntimeUnavailableError(`The inference worker could not be created: ${(error as Error).message}`, {}, { cause: error });
    }
    const remote = wrap<InferenceWorkerApi>(worker);
    const live: LiveWorker = { name, worker, remote, device: Promise.resolve() as unknown as Promise<DeviceReport>, started: false, loaded: new Map(), loading: new SharedWork(), inFlight: new Set(), calls: new Set(), dead: false };
    worker.addEventListener('error', (event) => live.started
      ? this.stop(live, 'crashed', `the worker failed: ${event.message || 'unknown error'}`)
      // Before init answers, an error with no message is the script failing to load: offline with no cached copy, missing, or blocked.
      : this.stop(live, 'unavailable', event.message || 'its script did not load (offline with no copy kept, or blocked)'));
    // Until init returns, the worker holds no liveness lock: a worker that dies while starting
    // would otherwise leave every call waiting forever. Init is sent once the page has read the
    // kept ORT wasm, which overlaps the worker script's load.
    const init = (wasm?: KeptOrtWasm) => {
      live.startTimer = setTimeout(() => this.stop(live, 'unavailable', `it did not answer within ${START_TIMEOUT_MS / 1000} s`), START_TIMEOUT_MS);
      const { backend, splitCoresBy, threads, onRuntimeDownload } = this.options;
      return remote.init(backend, splitCoresBy, threads, wasm && transfer(wasm, [wasm.bytes]), onRuntimeDownload && proxy(onRuntimeDownload));
    };
    const { keptOrtWasm } = this.options;
    live.device = (keptOrtWasm ? keptOrtWasm().catch(() => undefined).then(init) : init()).then(
      (device) => {
        clearTimeout(live.startTimer);
        live.started = true;
        // Granted only once the worker no longer holds it, i.e. when it has died.
        void navigator.locks.request(`lantern-alive:${name}`, () => {
          if (!live.dead) this.stop(live, 'crashed', 'the worker stopped unexpectedly');
        });
        return device;
      },
      (error: unknown) => {
        this.stop(live, 'unavailable', 'its init failed');
        throw error;
      },
    );
    this.live = live;
    return live;
  }

  private stop(live: LiveWorker, reason: StopReason, detail = ''): void {
    if (live.dead) return;
    live.dead = true;
    live.worker.terminate();
    clearTimeout(live.startTimer);
    // The calls of a terminated worker never finish: their timers go with it.
    for (const call of live.calls) clearTimeout(call.stuckTimer);
    live.calls.clear();
    if (this.live === live) this.live = undefined;
    const error = reason === 'stuck'
      ? new WorkerCrashedError('The worker was restarted: a cancelled request kept it busy too long.')
      : reason === 'unavailable'
        ? new RuntimeUnavailableError(`The inference worker could not start: ${detail}.`)
        : new WorkerCrashedError(`The inference worker stopped (${detail || reason}).`);
    for (const reject of live.inFlight) reject(error);
    live.inFlight.clear();
  }

  /**
   * Runs one call against the live worker, racing it against death and abort. An aborted call
   * settles with CancelledError at once; the worker finishes it and its answer is dropped.
   */
  private async call<T>(fn: (live: LiveWorker) => Promise<T>, signal?: AbortSignal, key?: string): Promise<T> {
    if (signal?.aborted) throw cancelledBy(signal);
    const live = this.start();
    let rejectCall!: (error: Error) => void;
    const guard = new Promise<never>((_, reject) => (rejectCall = reject));
    live.inFlight.add(rejectCall);
    const call: Call = { abandoned: false, key };
    live.calls.add(call);
    const work = fn(live);
    const done = () => {
      live.calls.delete(call);
      clearTimeout(call.stuckTimer);
      this.armIdle(live);
    };
    work.then(done, (error: unknown) => {
      done();
      // ORT cannot start twice in one worker: the next call gets a fresh worker to try again.
      if (error instanceof RuntimeUnavailableError) this.stop(live, 'crashed', 'ONNX Runtime could not start');
    });
    const onAbort = () => {
      live.inFlight.delete(rejectCall);
      rejectCall(cancelledBy(signal));
      call.abandoned = true;
      this.watchAbandoned(live, call);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      return await Promise.race([work, guard]);
    } finally {
      signal?.removeEventListener('abort', onAbort);
      live.inFlight.delete(rejectCall);
    }
  }

  /**
   * Restarts the worker if an abandoned call keeps it busy. The call may only be waiting in the
   * worker behind calls that are still wanted (a batch runs after the one before it), and
   * restarting then would fail them and cost the next request a cold start: the worker is taken
   * for stuck only when its oldest unfinished call is an abandoned one.
   */
  private watchAbandoned(live: LiveWorker, call: Call): void {
    call.stuckTimer = setTimeout(() => {
      const oldest = live.calls.values().next().value;
      if (!oldest?.abandoned) return this.watchAbandoned(live, call);
      this.stop(live, 'stuck');
      if (oldest.key !== undefined) this.options.onStuck?.(oldest.key);
    }, ABANDONED_CALL_LIMIT_MS);
  }

  /**
   * Notes the end of a call. One timer serves a stream of calls: it re-arms itself for the time
   * left when it fires early, instead of every call re-arming it (a request makes two calls; the
   * timers showed in profiles of the app's page, docs/PERFORMANCE.md).
   */
  private armIdle(live: LiveWorker): void {
    if (this.options.idleMs <= 0 || live.calls.size > 0 || live.dead) return;
    this.lastUse = performance.now();
    this.idleTimer ??= after(this.options.idleMs, () => this.stopIfIdle());
  }

  /** The idle timer: stops the running worker once unused for idleMs; a call in flight re-arms it when it ends. */
  private stopIfIdle(): void {
    this.idleTimer = undefined;
    const live = this.live;
    if (!live || live.dead || live.calls.size > 0) return;
    const left = this.options.idleMs - (performance.now() - this.lastUse);
    if (left > 0) this.idleTimer = after(left, () => this.stopIfIdle());
    else this.stop(live, 'idle');
  }

  device(signal?: AbortSignal): Promise<DeviceReport> {
    return this.call((live) => live.device, signal);
  }

  /**
   * Makes sure `key` is loaded in the current worker, fetching its files only when needed.
   * Returns the load report and whether this call started the load (a cold start). Callers that
   * come while it loads share it (see SharedWork): `files` gets the load's own signal and
   * progress, not any one caller's.
   */
  ensureLoaded(
    key: string,
    files: (signal: AbortSignal, onProgress: (progress: LoadProgress) => void) => Promise<ModelFiles>,
    options: JoinOptions<LoadProgress> = {},
  ): Promise<{ report: LoadReport; cold: boolean }> {
    return this.call(async (live) => {
      const loaded = live.loaded.get(key);
      if (loaded) return { report: loaded, cold: false };
      const cold = !live.loading.has(key);
      const report = await live.loading.join(key, async (signal, onProgress) => {
        // Reading the model from the store overlaps the worker's start (adapter probe, ORT init).
        const [f] = await Promise.all([files(signal, onProgress), live.device]);
        const loadReport = await live.remote.load(transfer(f, [f.onnx]));
        live.loaded.set(key, loadReport);
        return loadReport;
      }, options);
      return { report, cold };
    }, options.signal);
  }

  /**
   * `transferables` are moved to the worker instead of copied (the caller must not reuse them);
   * `cache`: answer repeated inputs from the worker's in-memory result cache (opt-in per model).
   */
  classify(key: string, inputs: ClassifyInput[], k: number, signal?: AbortSignal, transferables: Transferable[] = [], cache = false): Promise<BatchReport> {
    return this.call((live) => live.remote.classify(key, transfer(inputs, transferables), k, cache), signal, key);
  }

  unload(key: string): Promise<void> {
    if (!this.running) return Promise.resolve();
    return this.call(async (live) => {
      live.loaded.delete(key);
      await live.remote.unload(key);
    });
  }

  /**
   * Asks the running worker something without counting as use: the idle timer runs on, so a
   * screen that polls (the Metrics screen's memory sampler) never keeps an unused worker alive.
   * Null when no worker runs (none is started to answer) or it stops before answering.
   */
  private observe<T>(ask: (live: LiveWorker) => Promise<T>): Promise<T | null> {
    const live = this.live;
    if (!live || live.dead) return Promise.resolve(null);
    return new Promise((resolve) => {
      const onStop = () => resolve(null);
      live.inFlight.add(onStop);
      ask(live).then(resolve, () => resolve(null)).finally(() => live.inFlight.delete(onStop));
    });
  }

  /** ORT's wasm memory in the running worker; see observe. */
  wasmMemory(): Promise<WasmMemoryReading> {
    return this.observe<WasmMemoryReading>((live) => live.remote.wasmMemory());
  }

  /** The running worker's WASM threads; see observe. */
  threads(): Promise<number | null> {
    return this.observe((live) => live.device.then((device) => device.choice.threads));
  }

  get running(): boolean {
    return Boolean(this.live && !this.live.dead);
  }

  /** Stops the worker for good: calls in flight fail with WorkerCrashedError, and so does every later one. */
  dispose(): void {
    this.disposed = true;
    this.idleTimer?.();
    this.idleTimer = undefined;
    if (this.live) this.stop(this.live, 'disposed');
  }
}
