import { chooseBackend, probeAdapter, type Backend, type BackendPreference, type BackendReason } from './backend.ts';
import { defaultWorker } from './default-worker.ts';
import { goldenValidator } from './golden-gate.ts';
import { asLanternError, CancelledError, deserializeError, InputError, IntegrityError, SignatureError, throwIfAborted, TimeoutError, WorkerCrashedError, worthAFreshWorker, type ErrorCode } from './errors.ts';
import { resendable, toWireInput, type LanternInput, type WireInput } from './inputs.ts';
import { keptOrtWasm } from './ort-cache.ts';
import type { FetchOptions, LoadProgress, ModelDescriptor, ModelSource } from './model-source.ts';
import type { Note } from './notes.ts';
import type { Prediction } from './postprocess.ts';
import { fallbackTrigger, mayAnswerFor, primaryDeadline } from './release/fallback.ts';
import { DEFAULT_BACKLOG_WORKERS, PoolPolicy } from './pool-policy.ts';
import { Scheduler, type Priority } from './scheduler.ts';
import { SharedWork } from './shared-work.ts';
import { withDeadline } from './timer.ts';
import { signedStore } from './store/signed-store.ts';
import { WorkerClient, type BatchReport, type ClassifyInput, type DeviceReport, type LoadReport, type ModelFiles, type WasmMemoryReading } from './worker-client.ts';

export type { ClassifyInput, DeviceReport, LanternInput, LoadProgress, LoadReport, ModelDescriptor, Priority };

export interface StageTimings {
  queueMs: number;
  /** Fetching and verifying the model and creating its session, when this request had to. */
  loadMs: number;
  preprocessMs: number;
  inferenceMs: number;
  postprocessMs: number;
  totalMs: number;
}

/** Where a cold start's load time went; the model source downloads and verifies in one call. */
export interface LoadBreakdown {
  /** Getting the verified files from the model source (download or storage read, and hashing). */
  filesMs: number;
  /** Creating the inference session in the worker. */
  createMs: number;
}

export interface ClassificationResult {
  modelId: string;
  version: string;
  /** False when the model came unsigned from a development folder (allowed only with `allowUnsigned`). */
  signed: boolean;
  predictions: Prediction[];
  /** Things the user should know (truncated text, downscaled image, fallback), as kinds. */
  notes: Note[];
  backend: Backend;
  backendReason: BackendReason;
  /** The top score is below the model's `unsureBelow`: show the answer as unsure. */
  unsure: boolean;
  unsureBelow: number;
  /** Set when WebGPU failed and WASM answered instead. */
  fallback?: BackendReason;
  batchSize: number;
  coldStart: boolean;
  /** Set on cold starts. */
  load?: LoadBreakdown;
  retried: boolean;
  /** Answered from the in-memory result cache (the model did not run). */
  cached: boolean;
  /** Set when the requested model could not answer and its fallback model did (`modelId` is the fallback). */
  answeredByFallback?: { requested: string; code: ErrorCode; reason: string };
  timings: StageTimings;
}

/** What metrics receive: never the input, only what happened to it. */
export type RequestRecord =
  | { ok: true; modelId: string; version: string; backend: Backend; label: string; score: number; batchSize: number; coldStart: boolean; load?: LoadBreakdown; timings: StageTimings }
  | { ok: false; modelId: string; errorCode: string; errorName: string; totalMs: number };

export interface LanternOptions {
  /** Creates an inference worker; `name` must reach the Worker constructor. Default: the bundled worker. */
  createWorker?: (name: string) => Worker;
  /** Where models come from. Default: the signed store configured next to the page (signedStore()). */
  models?: ModelSource;
  /**
   * Lets models that carry no signature run (FolderModelSource, for development). Without it such a
   * model is refused with a SignatureError; with it, every result says `signed: false`.
   */
  allowUnsigned?: boolean;
  backend?: BackendPreference;
  /**
   * Workers started beside the first one under sustained load, splitting the cores' WASM threads
   * between them (pool-policy.ts). Default 2 (0 on one core); 0 keeps one worker.
   */
  backlogWorkers?: number;
  /** WASM threads of the first worker (default: the cores, up to 4; for benchmarks and low-end devices). */
  threads?: number;
  idleMs?: number;
  maxQueued?: number;
  maxBatch?: number;
  maxWaitMs?: number;
  onRecord?: (record: RequestRecord) => void;
  /**
   * Called with `id@version` when a run of that model version kept a worker busy 10 s past the
   * end of every request in it (all cancelled or past their deadline), and the worker was
   * restarted for it: what a model that hangs on some input looks like. Its requests were already
   * recorded as cancelled or timed out; `autoRollback` counts this against the version.
   */
  onStuck?: (versionKey: string) => void;
  /** Per-model choices made on this device (release/model-settings.ts); none by default. */
  policies?: ModelPolicies;
  /**
   * Called after the active version of `modelId` answered a request (not from the cache, not by
   * a fallback), with the input when it can be sent again (not one whose buffers were moved to
   * the worker, nor a bitmap or frame the caller may close): shadow evaluation hooks in here
   * (release/shadow-runner.ts).
   */
  onAnswer?: (modelId: string, input: LanternInput, result: ClassificationResult) => void;
  /**
   * Hears ONNX Runtime's wasm arrive, in decoded bytes so far, on a device that keeps no copy yet
   * (a first visit): the bulk of a first download, for a progress figure that moves.
   */
  onRuntimeDownload?: (loadedBytes: number) => void;
}

/** Which model answers when one cannot, and which models may answer repeated inputs from memory. */
export interface ModelPolicies {
  fallbackFor(modelId: string): string | undefined;
  cacheEnabled(modelId: string): boolean;
}

export interface LoadOptions {
  signal?: AbortSignal;
  onProgress?: (progress: LoadProgress) => void;
}

/** What `load` warmed: the version that will answer, on which backend. */
export interface LoadedModel {
  descriptor: ModelDescriptor;
  backend: Backend;
  backendReason: BackendReason;
  /** False when an earlier call (or request) had already loaded it. */
  coldStart: boolean;
  load?: LoadBreakdown;
}

export interface ClassifyOptions {
  signal?: AbortSignal;
  priority?: Priority;
  /** Milliseconds from now after which the answer is no longer wanted. */
  timeoutMs?: number;
  /**
   * How long a run may take once it is dispatched (TimeoutError after); its model's download and
   * its wait in the queue, a hidden page's pause included, do not count (Scheduler's runTimeoutMs).
   */
  runTimeoutMs?: number;
  topK?: number;
}

interface Job {
  wire: WireInput;
  /** Set once the input's buffers went to a worker: a crash retry cannot send them again. */
  handedOver: boolean;
  /**
   * Set once the request settled (cancelled, past its deadline) while its batch waits for the
   * model: it is not sent, and its input snapshot is already released.
   */
  settled: boolean;
  topK: number;
  submittedAt: number;
}

/**
 * A version that is not active (the validation gate's candidate), run through the same scheduler
 * and crash retry as every request, at background priority by default. Its results are not
 * recorded in the metrics. `close` frees its session in every worker.
 */
export interface CandidateRun {
  /**
   * Creates its session in the first worker, as `Lantern.load` does for a model: ModelLoadError
   * when ONNX Runtime cannot load its graph or its tokenizer or preprocessor cannot be built.
   */
  load(options?: { signal?: AbortSignal }): Promise<void>;
  classify(input: LanternInput, options?: ClassifyOptions): Promise<ClassificationResult>;
  close(): Promise<void>;
  /**
   * Whether a worker was restarted because a run of this candidate, given up (cancelled or past
   * its deadline), kept it busy ABANDONED_CALL_LIMIT_MS longer: the candidate hangs.
   */
  hung(): boolean;
}

interface Candidate {
  descriptor: ModelDescriptor;
  files: () => Promise<ModelFiles>;
  /** Cleared by close(): it runs nothing more, but a restart for its last run may still name it. */
  open: boolean;
  hung: boolean;
}

/** A model the scheduler can run: its descriptor, the key its session is held under, its files. */
interface Runnable {
  descriptor: ModelDescriptor;
  key: string;
  files: (options: FetchOptions) => Promise<ModelFiles>;
}

/** Scheduling ids of candidates start with this; a model id never has a colon. */
const CANDIDATE_PREFIX = 'candidate:';

type JobOutcome = Omit<ClassificationResult, 'timings' | 'retried'> & { timings: Omit<StageTimings, 'queueMs' | 'totalMs'> };

/**
 * Batches in flight per worker: the next one waits inside the worker while the current one runs,
 * so the worker never idles for a page↔worker round trip between batches.
 */
const SLOTS_PER_WORKER = 2;

/**
 * Backlog workers by default: two workers of one thread each beat one of two threads under load
 * (pool-policy.ts). One core has nothing to split.
 */
const defaultBacklogWorkers = () => ((globalThis.navigator?.hardwareConcurrency ?? 1) >= 2 ? DEFAULT_BACKLOG_WORKERS : 0);

/** Largest top-k computed in the worker; requests slice what they asked for. */
const MAX_TOP_K = 5;

const PRIORITIES: readonly Priority[] = ['interactive', 'background'];

/**
 * Refuses options that would otherwise be misread: `topK: 0` or NaN gave no predictions and a
 * negative one dropped the last labels (`slice`), a priority the scheduler has no queue for failed
 * inside it as an INTERNAL TypeError, and a NaN timeout never expired. Apps in plain JavaScript
 * (or with values from a form) get a typed InputError naming the option instead.
 */
function checkOptions(options: ClassifyOptions): void {
  const bad = (option: string, rule: string) => new InputError(`classify option ${option} must be ${rule}.`, { reason: 'bad-option', option });
  if (options.topK !== undefined && !(Number.isInteger(options.topK) && options.topK >= 1)) throw bad('topK', `a whole number from 1 (at most ${MAX_TOP_K} are given)`);
  if (options.priority !== undefined && !PRIORITIES.includes(options.priority)) throw bad('priority', `one of ${PRIORITIES.join(', ')}`);
  for (const option of ['timeoutMs', 'runTimeoutMs'] as const) {
    const ms = options[option];
    if (ms !== undefined && (typeof ms !== 'number' || Number.isNaN(ms))) throw bad(option, 'a number of milliseconds');
  }
}

/**
 * The runtime's front door: validates nothing itself but wires the model source, the worker
 * pool and the scheduler together, and turns batch reports into per-request results.
 */
export class Lantern {
  private readonly clients: WorkerClient[];
  /** Candidates being validated, by scheduling id (which is also their session key; never a model id: it has a colon). */
  private readonly candidates = new Map<string, Candidate>();
  private readonly scheduler: Scheduler<Job, JobOutcome>;
  private readonly descriptors = new Map<string, ModelDescriptor>();
  /**
   * Models whose descriptor is read again before their next run (the source changed). Kept meanwhile, not
   * dropped: a queued request's batch is formed by it (maxBatch), and a fixed-batch model takes one input.
   */
  private readonly staleDescriptors = new Set<string>();
  /** First requests for a model share one install (a second one would be refused as busy). */
  private readonly describing = new SharedWork<ModelDescriptor, LoadProgress>();
  /** The model version each worker currently holds, so an activation/rollback unloads the old one. */
  private readonly loadedKey: Map<string, string>[] = [];

  /** Set once a worker runs on WebGPU: one GPU queue, so backlog workers would only contend. */
  private onGpu = false;

  private readonly pool: PoolPolicy;

  private readonly source: ModelSource;

  /** The documented way in: every option has a default (see docs/API.md). */
  static create(options: LanternOptions = {}): Lantern {
    return new Lantern(options);
  }

  constructor(private readonly options: LanternOptions = {}) {
    // The default store runs a release's golden set on this runtime before activating it.
    this.source = options.models ?? signedStore({ validate: goldenValidator(() => this) });
    this.source.subscribe?.(() => this.refreshModels());
    const backlogWorkers = Math.max(0, options.backlogWorkers ?? defaultBacklogWorkers());
    this.pool = new PoolPolicy({ backlogWorkers, running: (worker) => this.clients[worker]!.running });
    this.clients = Array.from({ length: this.pool.workers }, (_, worker) => new WorkerClient({
      createWorker: options.createWorker ?? defaultWorker,
      backend: options.backend ?? 'auto',
      // The first worker has every core; the backlog workers share them.
      splitCoresBy: worker === 0 ? 1 : backlogWorkers,
      threads: worker === 0 ? options.threads : undefined,
      idleMs: options.idleMs ?? 5 * 60_000,
      keptOrtWasm,
      onRuntimeDownload: options.onRuntimeDownload,
      onStuck: (key) => {
        // A candidate is no installed version: its golden set (or shadow runs) judge it.
        const candidate = this.candidates.get(key);
        if (candidate) candidate.hung = true;
        else if (!key.startsWith(CANDIDATE_PREFIX)) options.onStuck?.(key);
      },
    }));
    this.scheduler = new Scheduler<Job, JobOutcome>({
      slots: this.pool.workers * SLOTS_PER_WORKER,
      maxQueued: options.maxQueued ?? 256,
      maxWaitMs: options.maxWaitMs ?? 0,
      maxBatch: (id) => ((this.candidates.get(id)?.descriptor ?? this.descriptors.get(id))?.batch === 'fixed' ? 1 : (options.maxBatch ?? 32)),
      slotAvailable: (slot, modelId) => this.pool.mayTake(this.workerOf(slot), modelId),
      execute: (modelId, jobs, slot, signal) => this.runOnWorker(modelId, jobs, this.workerOf(slot), signal),
    });
  }

  /**
   * The worker of an execution slot. Slots go round the pool (slot s is worker s mod workers), so
   * the scheduler's lowest free slot is a free worker's first slot before any worker's second:
   * two batches run on two backlog workers, tokenising on both cores, instead of waiting in one.
   * Under the spam load (64 in flight) that gave 1.17× and 1.18× the throughput of the slots
   * numbered worker by worker (per-pair medians of two A/Bs of 7 interleaved repetitions).
   */
  private workerOf(slot: number): number {
    return slot % this.pool.workers;
  }

  /** Resolves when no request is queued or running. */
  whenIdle(): Promise<void> {
    return this.scheduler.whenIdle();
  }

  /** Holds queued requests without running them (page hidden); see Scheduler.pause. */
  pause(): void {
    this.scheduler.pause();
  }

  resume(): void {
    this.scheduler.resume();
  }

  get queueDepth(): number {
    return this.scheduler.depth;
  }

  get schedulerStats() {
    return { ...this.scheduler.stats };
  }

  models(): Promise<ModelDescriptor[]> {
    return this.source.list();
  }

  device(): Promise<DeviceReport> {
    return this.clients[0]!.device();
  }

  /**
   * The backend `device()` will choose, and so which ORT build a worker will download, without
   * starting one: for telling a user the size of that download before it happens.
   */
  async plannedBackend(): Promise<Backend> {
    const facts = { adapter: await probeAdapter(), crossOriginIsolated: globalThis.crossOriginIsolated ?? false, hardwareConcurrency: navigator.hardwareConcurrency };
    return chooseBackend(this.options.backend ?? 'auto', facts).backend;
  }

  /** ORT's WebAssembly memory in each running worker (none is started to answer). */
  workerMemory(): Promise<WasmMemoryReading[]> {
    return Promise.all(this.clients.filter((c) => c.running).map((c) => c.wasmMemory()));
  }

  /**
   * The WASM threads of each running worker, the first worker's first (none is started to
   * answer): whether a sustained load runs on the backlog workers, and on how many threads.
   */
  async workerThreads(): Promise<number[]> {
    const threads = await Promise.all(this.clients.map((client) => client.threads()));
    return threads.filter((count) => count !== null);
  }

  /**
   * Reads model descriptors again before the next run (after an install, activation or rollback).
   * A source that can say when it changed (`ModelSource.subscribe`, as the signed store does) has
   * this called for it.
   */
  refreshModels(): void {
    for (const id of this.descriptors.keys()) this.staleDescriptors.add(id);
  }

  /**
   * Runs a version that is not active (the validation gate's candidate, a shadow candidate); see
   * CandidateRun. `files` is read on each (re)load, a crash retry's in a fresh worker included:
   * a load moves the graph's bytes to its worker, so each read must give bytes of its own (a
   * long-lived candidate's stay in the store between runs and are re-verified when read).
   */
  candidate(descriptor: ModelDescriptor, files: () => Promise<ModelFiles>): CandidateRun {
    // A key of its own: the candidate's session never stands in for an installed version.
    const id = `${CANDIDATE_PREFIX}${crypto.randomUUID()}`;
    const candidate: Candidate = { descriptor, files: async () => ({ ...(await files()), key: id }), open: true, hung: false };
    this.candidates.set(id, candidate);
    return {
      load: async (options = {}) => {
        await this.loadInFirstWorker(id, options);
      },
      classify: async (input, options = {}) => {
        checkOptions(options);
        return this.run(id, input, { priority: 'background', ...options });
      },
      // Resolves once every worker that held its session let it go, or was restarted (a worker
      // hung on its run answers nothing before): by then hung() has its answer.
      close: async () => {
        candidate.open = false;
        await Promise.all(this.loadedKey.map(async (held, worker) => {
          const key = held.get(id);
          held.delete(id);
          if (key) await this.clients[worker]!.unload(key).catch(() => undefined);
        }));
        this.candidates.delete(id);
      },
      hung: () => candidate.hung,
    };
  }

  /**
   * Makes a model ready before the first request: fetches (or installs) and verifies its files
   * and creates its session in the first worker. Requests made meanwhile share the same load.
   */
  async load(modelId: string, options: LoadOptions = {}): Promise<LoadedModel> {
    const { signal } = options;
    try {
      const descriptor = await this.describe(modelId, options);
      throwIfAborted(signal);
      const warm = await this.loadInFirstWorker(modelId, options);
      options.onProgress?.({ phase: 'ready' });
      return {
        descriptor,
        backend: warm.report.backend,
        backendReason: warm.report.fallback ?? warm.report.reason,
        coldStart: warm.cold,
        ...(warm.cold ? { load: { filesMs: warm.filesMs, createMs: warm.report.createMs } } : {}),
      };
    } catch (error) {
      throw asLanternError(error);
    }
  }

  /**
   * Loads `modelId` into the first worker. As a request's batch is (Scheduler), a worker that
   * died, or whose ONNX Runtime could not start, is replaced and the load tried once more there.
   */
  private loadInFirstWorker(modelId: string, options: LoadOptions) {
    return this.ensureModel(modelId, 0, options).catch((error: unknown) => {
      if (!worthAFreshWorker(error)) throw error;
      return this.ensureModel(modelId, 0, options);
    });
  }

  /**
   * The model's descriptor, cached. The first time, the source may make the model available
   * (signedStore installs it from its catalog); an unsigned model is refused unless `allowUnsigned`.
   */
  private describe(modelId: string, fetch: FetchOptions = {}): Promise<ModelDescriptor> {
    const cached = this.cachedDescriptor(modelId);
    if (cached) return Promise.resolve(cached);
    return this.describing.join(modelId, (signal, onProgress) => this.fetchDescriptor(modelId, { signal, onProgress }), fetch);
  }

  private cachedDescriptor(modelId: string): ModelDescriptor | undefined {
    return this.staleDescriptors.has(modelId) ? undefined : this.descriptors.get(modelId);
  }

  /**
   * describe() for a request: given up at the request's `deadline` (TimeoutError) as well as by
   * its signal, so a first request does not wait past its deadline for the model's install or a
   * store another tab blocks. The install goes on for its other callers.
   */
  private async describeFor(modelId: string, signal: AbortSignal | undefined, deadline: number | undefined): Promise<ModelDescriptor> {
    if (deadline === undefined || this.cachedDescriptor(modelId)) return this.describe(modelId, { signal });
    const timeout = new TimeoutError('The request missed its deadline while its model was being made ready.');
    return withDeadline(signal, deadline - performance.now(), timeout, (until) => this.describe(modelId, { signal: until }));
  }

  private async fetchDescriptor(modelId: string, fetch: FetchOptions): Promise<ModelDescriptor> {
    await this.source.prepare?.(modelId, fetch);
    const descriptor = await this.source.describe(modelId);
    if (!descriptor.signed && !this.options.allowUnsigned) {
      throw new SignatureError(`${modelId} is not signed; create Lantern with allowUnsigned: true to run unsigned development models.`, { id: modelId });
    }
    this.descriptors.set(modelId, descriptor);
    this.staleDescriptors.delete(modelId);
    return descriptor;
  }

  /**
   * Classifies several inputs with one model; the scheduler batches them together. Resolves with
   * the results in input order, or rejects with the first failure once every item has settled.
   */
  async classifyBatch(modelId: string, inputs: LanternInput[], options: ClassifyOptions = {}): Promise<ClassificationResult[]> {
    const settled = await Promise.allSettled(inputs.map((input) => this.classify(modelId, input, options)));
    const failed = settled.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
    return settled.map((s) => (s as PromiseFulfilledResult<ClassificationResult>).value);
  }

  /**
   * Classifies with `modelId`, or with its fallback model when it cannot answer (see
   * release/fallback.ts). Both outcomes are recorded, so a failing primary still trips its
   * automatic rollback while the fallback keeps the user answered.
   */
  async classify(modelId: string, input: LanternInput, options: ClassifyOptions = {}): Promise<ClassificationResult> {
    checkOptions(options);
    const submittedAt = performance.now();
    const fallbackId = this.options.policies?.fallbackFor(modelId);
    const deadline = options.timeoutMs !== undefined ? submittedAt + options.timeoutMs : undefined;
    try {
      const result = await this.classifyWith(modelId, input, options, submittedAt, primaryDeadline(submittedAt, options.timeoutMs, fallbackId !== undefined));
      // Only apps that observe answers (shadow evaluation) pay for the input check.
      const { onAnswer } = this.options;
      if (onAnswer && !result.cached && resendable(input)) onAnswer(modelId, input, result);
      return result;
    } catch (error) {
      const code = fallbackTrigger(error);
      if (!fallbackId || !code || (deadline !== undefined && deadline <= performance.now())) throw error;
      const [primary, backup] = await Promise.all([this.labelsOf(modelId), this.describe(fallbackId).catch(() => undefined)]);
      if (!mayAnswerFor(primary, backup?.labels)) throw error;
      const reason = (error as Error).message;
      // If the fallback cannot answer either (e.g. the input's buffers went to the failed run),
      // the primary's failure is the one worth reporting.
      const result = await this.classifyWith(fallbackId, input, options, submittedAt, deadline).catch(() => Promise.reject(error));
      return { ...result, answeredByFallback: { requested: modelId, code, reason } };
    }
  }

  /** The labels a model answers in, also when it cannot be described now (see mayAnswerFor). */
  private async labelsOf(modelId: string): Promise<readonly string[] | undefined> {
    const descriptor = await this.describe(modelId).catch(() => undefined);
    return descriptor?.labels ?? this.source.lastLabels?.(modelId).catch(() => undefined);
  }

  /** One model's attempt, recorded in the metrics whatever its outcome. */
  private async classifyWith(modelId: string, input: LanternInput, options: ClassifyOptions, submittedAt: number, deadline: number | undefined): Promise<ClassificationResult> {
    try {
      await this.describeFor(modelId, options.signal, deadline);
      const result = await this.run(modelId, input, { ...options, deadline }, submittedAt);
      const top = result.predictions[0];
      this.options.onRecord?.({
        ok: true, modelId, version: result.version, backend: result.backend, label: top?.label ?? '', score: top?.score ?? 0,
        batchSize: result.batchSize, coldStart: result.coldStart, ...(result.load ? { load: result.load } : {}), timings: result.timings,
      });
      return result;
    } catch (error) {
      const err = asLanternError(error);
      this.options.onRecord?.({ ok: false, modelId, errorCode: err.code, errorName: err.name, totalMs: performance.now() - submittedAt });
      throw err;
    }
  }

  /** `deadline` (a performance.now() time) overrides the one `timeoutMs` gives. */
  private async run(modelId: string, input: LanternInput, options: ClassifyOptions & { deadline?: number | undefined }, submittedAt = performance.now()): Promise<ClassificationResult> {
    const wire = await toWireInput(input);
    const job: Job = { wire, handedOver: false, settled: false, topK: options.topK ?? 3, submittedAt };
    try {
      const deadline = options.deadline ?? (options.timeoutMs !== undefined ? submittedAt + options.timeoutMs : undefined);
      const scheduled = await this.scheduler.submit(modelId, job, { signal: options.signal, priority: options.priority, deadline, runTimeoutMs: options.runTimeoutMs });
      const out = scheduled.value;
      return {
        ...out,
        predictions: out.predictions.slice(0, job.topK),
        retried: scheduled.retried,
        timings: { ...out.timings, queueMs: scheduled.queueMs, totalMs: performance.now() - submittedAt },
      };
    } finally {
      job.settled = true;
      wire.release?.();
    }
  }

  /** What runs under a scheduling id: a candidate, or the source's active version of a model. */
  private async runnable(modelId: string): Promise<Runnable> {
    if (modelId.startsWith(CANDIDATE_PREFIX)) {
      const candidate = this.candidates.get(modelId);
      if (!candidate?.open) throw new CancelledError('The candidate was closed.');
      return { descriptor: candidate.descriptor, key: modelId, files: candidate.files };
    }
    const descriptor = await this.describe(modelId);
    return { descriptor, key: `${descriptor.id}@${descriptor.version}`, files: (options) => this.source.files(modelId, options) };
  }

  /** A batch on `worker`, as the pool policy sees it: how busy each worker is, and when to warm the backlog. */
  private async runOnWorker(modelId: string, jobs: Job[], worker: number, signal: AbortSignal): Promise<{ outcomes: (JobOutcome | Error)[] }> {
    this.pool.started(worker);
    if (worker === 0 && !this.onGpu) this.warmBacklogWorkers(modelId);
    try {
      return await this.execute(modelId, jobs, worker, signal);
    } finally {
      this.pool.finished(worker);
    }
  }

  /** Loads `modelId` into the backlog workers the pool wants warm, off the request path. */
  private warmBacklogWorkers(modelId: string): void {
    for (const worker of this.pool.toWarm(modelId)) {
      void this.ensureModel(modelId, worker).then(
        () => {
          this.pool.warmed(worker, modelId, true);
          this.scheduler.slotsChanged();
        },
        () => this.pool.warmed(worker, modelId, false),
      );
    }
  }

  private async execute(modelId: string, jobs: Job[], worker: number, signal: AbortSignal): Promise<{ outcomes: (JobOutcome | Error)[] }> {
    try {
      return await this.executeOnce(modelId, jobs, worker, signal);
    } catch (error) {
      // The store quarantined a version that failed re-verification and activated the previous
      // good one (details.fallback): answer with that one instead of failing the request.
      if (!(error instanceof IntegrityError) || typeof error.details.fallback !== 'string') throw error;
      this.staleDescriptors.add(modelId);
      await this.describe(modelId);
      const { outcomes } = await this.executeOnce(modelId, jobs, worker, signal);
      const note: Note = { kind: 'version-fallback', id: modelId, version: String(error.details.version ?? ''), fallback: error.details.fallback };
      return { outcomes: outcomes.map((o) => (o instanceof Error ? o : { ...o, notes: [note, ...o.notes] })) };
    }
  }

  /** Loads the model's active version into one worker (unloading a replaced version first). */
  private async ensureModel(modelId: string, worker: number, options: LoadOptions = {}) {
    const client = this.clients[worker]!;
    const { descriptor, key, files: readFiles } = await this.runnable(modelId);
    const held = (this.loadedKey[worker] ??= new Map());
    const previous = held.get(modelId);
    // A new version was activated (or rolled back): free the old session first.
    if (previous && previous !== key) await client.unload(previous).catch(() => undefined);
    const loadStarted = performance.now();
    let filesMs = 0;
    const { report, cold } = await client.ensureLoaded(key, async (signal, onProgress) => {
      const started = performance.now();
      const files = await readFiles({ signal, onProgress });
      filesMs = performance.now() - started;
      onProgress({ phase: 'session' });
      return files;
    }, options);
    if (modelId.startsWith(CANDIDATE_PREFIX) && !this.candidates.get(modelId)?.open) {
      // Closed while its session loaded: close() could not free what this worker did not yet hold.
      await client.unload(key).catch(() => undefined);
      throw new CancelledError('The candidate was closed.');
    }
    held.set(modelId, key);
    return { descriptor, key, report, cold, filesMs, loadMs: cold ? performance.now() - loadStarted : 0 };
  }

  /**
   * A batch the browser could not send: postMessage's DataCloneError, from an input of a kind the
   * page's checks (inputs.ts) do not know. Each request is sent again alone: the one that cannot
   * be copied fails as the InputError it is, and the others answer. Sent together, it failed them
   * all as INTERNAL, which counts against the model version.
   */
  private async sendApart(modelId: string, jobs: Job[], worker: number, signal: AbortSignal): Promise<(JobOutcome | Error)[]> {
    if (jobs.length === 1) throw new InputError('This input cannot be sent to the inference worker: the browser could not copy it.', { reason: 'unsupported-input' });
    return Promise.all(jobs.map((job) => this.executeOnce(modelId, [job], worker, signal).then(({ outcomes }) => outcomes[0]!, (error: unknown) => {
      if (error instanceof InputError) return error;
      throw error;
    })));
  }

  private async executeOnce(modelId: string, jobs: Job[], worker: number, signal: AbortSignal): Promise<{ outcomes: (JobOutcome | Error)[] }> {
    const client = this.clients[worker]!;
    const { descriptor, key, report, cold, filesMs, loadMs } = await this.ensureModel(modelId, worker, { signal });
    // A crash retry cannot resend pixels that were moved into the worker that died.
    const lost = jobs.map((j) => j.handedOver && j.wire.transfer.length > 0);
    const sent = jobs.map((j, i) => !lost[i] && !j.settled);
    const sending = jobs.filter((_, i) => sent[i]);
    for (const job of sending) job.handedOver = true;
    let batch: BatchReport;
    try {
      batch = await client.classify(key, sending.map((j) => j.wire.input), MAX_TOP_K, signal, sending.flatMap((j) => j.wire.transfer), this.options.policies?.cacheEnabled(modelId) ?? false);
    } catch (error) {
      if (!(error instanceof DOMException && error.name === 'DataCloneError')) throw error;
      // postMessage moved nothing: these inputs are still the caller's to send.
      for (const job of sending) job.handedOver = false;
      return { outcomes: await this.sendApart(modelId, jobs, worker, signal) };
    }
    if (batch.backend === 'webgpu') this.onGpu = true;
    const fallbacks = [batch.fallback, cold ? report.fallback : undefined].filter((r) => r !== undefined);
    const notes = fallbacks.map((reason): Note => ({ kind: 'backend-fallback', reason }));
    const items = [...batch.items];
    return {
      outcomes: jobs.map((_, i) => {
        if (lost[i]) return new WorkerCrashedError('The worker stopped while holding this image\'s pixels (they were transferred to it); send the image again.');
        if (!sent[i]) return new CancelledError('The request was cancelled.');
        const item = items.shift()!;
        if (!item.ok) return deserializeError(item.error);
        return {
          modelId: descriptor.id,
          version: descriptor.version,
          signed: descriptor.signed,
          predictions: item.value.predictions,
          unsure: (item.value.predictions[0]?.score ?? 0) < report.unsureBelow,
          unsureBelow: report.unsureBelow,
          notes: [...item.value.notes, ...notes],
          backend: batch.backend,
          backendReason: batch.fallback ?? report.fallback ?? report.reason,
          ...(batch.fallback || report.fallback ? { fallback: batch.fallback ?? report.fallback } : {}),
          batchSize: batch.batchSize,
          coldStart: cold,
          cached: item.value.cached,
          ...(cold ? { load: { filesMs, createMs: report.createMs } } : {}),
          // A cached item did not take part in the batch's run.
          timings: item.value.cached
            ? { loadMs, preprocessMs: item.value.preprocessMs, inferenceMs: 0, postprocessMs: 0 }
            : { loadMs, preprocessMs: item.value.preprocessMs, inferenceMs: batch.inferenceMs, postprocessMs: batch.postprocessMs },
        };
      }),
    };
  }

  /** Stops the workers; every request, queued or running, and every later one fails with WorkerCrashedError. */
  dispose(): void {
    this.scheduler.close(new WorkerCrashedError('This Lantern was disposed.'));
    for (const client of this.clients) client.dispose();
  }
}
