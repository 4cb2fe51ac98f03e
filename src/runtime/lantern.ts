import type { Backend, BackendPreference, BackendReason } from './backend.ts';
import { deserializeError, IntegrityError, LanternError } from './errors.ts';
import type { ModelDescriptor, ModelSource } from './model-source.ts';
import type { Note } from './notes.ts';
import type { Prediction } from './postprocess.ts';
import { Scheduler, type Priority } from './scheduler.ts';
import { WorkerClient, type ClassifyInput, type DeviceReport, type LoadReport, type WorkerLifecycleEvent } from './worker-client.ts';

export type { ClassifyInput, DeviceReport, LoadReport, ModelDescriptor, Priority };

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
  timings: StageTimings;
}

/** What metrics receive: never the input, only what happened to it. */
export type RequestRecord =
  | { ok: true; modelId: string; version: string; backend: Backend; label: string; score: number; batchSize: number; coldStart: boolean; load?: LoadBreakdown; timings: StageTimings }
  | { ok: false; modelId: string; errorCode: string; errorName: string; totalMs: number };

export interface LanternOptions {
  createWorker: (name: string) => Worker;
  models: ModelSource;
  backend?: BackendPreference;
  /** Inference workers; on WASM they split the cores' threads between them. */
  poolSize?: number;
  /** WASM threads per worker (overrides the split; for benchmarks and low-end devices). */
  threads?: number;
  idleMs?: number;
  maxQueued?: number;
  maxBatch?: number;
  maxWaitMs?: number;
  onRecord?: (record: RequestRecord) => void;
  onLifecycle?: (event: WorkerLifecycleEvent) => void;
}

export interface ClassifyOptions {
  signal?: AbortSignal;
  priority?: Priority;
  /** Milliseconds from now after which the answer is no longer wanted. */
  timeoutMs?: number;
  topK?: number;
}

interface Job {
  input: ClassifyInput;
  topK: number;
  submittedAt: number;
}

type JobOutcome = Omit<ClassificationResult, 'timings' | 'retried'> & { timings: Omit<StageTimings, 'queueMs' | 'totalMs'> };

/** Requests waiting before a second worker is started. */
const EXTRA_WORKER_BACKLOG = 8;

/**
 * Workers in the pool by default. Measured on 2 cores (README, Benchmarks): two single-thread
 * workers won throughput in one run and lost it in the next, but a reload's first result took
 * 2.8 s against 1.3 s with one worker using both cores as WASM threads — start-up is what a field
 * user feels, so one worker it is. `poolSize` (or `?workers=2`) adds workers; extra ones start
 * only under a backlog.
 */
export function defaultPoolSize(_cores: number): number {
  return 1;
}

/** Largest top-k computed in the worker; requests slice what they asked for. */
const MAX_TOP_K = 5;

/**
 * The runtime's front door: validates nothing itself but wires the model source, the worker
 * pool and the scheduler together, and turns batch reports into per-request results.
 */
export class Lantern {
  readonly clients: WorkerClient[];
  private readonly scheduler: Scheduler<Job, JobOutcome>;
  private readonly descriptors = new Map<string, ModelDescriptor>();
  /** The model version each worker currently holds, so an activation/rollback unloads the old one. */
  private readonly loadedKey: Map<string, string>[] = [];

  /** Set once a worker runs on WebGPU: one GPU queue, so extra workers would only contend. */
  private onGpu = false;

  constructor(private readonly options: LanternOptions) {
    const poolSize = Math.max(1, options.poolSize ?? defaultPoolSize(globalThis.navigator?.hardwareConcurrency ?? 1));
    this.clients = Array.from({ length: poolSize }, () => new WorkerClient({
      createWorker: options.createWorker,
      backend: options.backend ?? 'auto',
      poolSize,
      threads: options.threads,
      idleMs: options.idleMs ?? 5 * 60_000,
      onLifecycle: options.onLifecycle,
    }));
    this.scheduler = new Scheduler<Job, JobOutcome>({
      slots: poolSize,
      maxQueued: options.maxQueued ?? 256,
      maxWaitMs: options.maxWaitMs ?? 0,
      maxBatch: (id) => (this.descriptors.get(id)?.batch === 'fixed' ? 1 : (options.maxBatch ?? 32)),
      // Extra workers start only for a real backlog, so a double click never pays a second cold start.
      slotAvailable: (slot, waiting) => slot === 0 || (!this.onGpu && (this.clients[slot]!.running || waiting >= EXTRA_WORKER_BACKLOG)),
      execute: (modelId, jobs, slot, signal) => this.execute(modelId, jobs, slot, signal),
    });
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
    return this.options.models.list();
  }

  device(): Promise<DeviceReport> {
    return this.clients[0]!.device();
  }

  /** Forgets cached model descriptors (after install, activation or rollback). */
  refreshModels(): void {
    this.descriptors.clear();
  }

  async classify(modelId: string, input: ClassifyInput, options: ClassifyOptions = {}): Promise<ClassificationResult> {
    const submittedAt = performance.now();
    try {
      if (!this.descriptors.has(modelId)) this.descriptors.set(modelId, await this.options.models.describe(modelId));
      const job: Job = { input, topK: options.topK ?? 3, submittedAt };
      const deadline = options.timeoutMs !== undefined ? submittedAt + options.timeoutMs : undefined;
      const scheduled = await this.scheduler.submit(modelId, job, { signal: options.signal, priority: options.priority, deadline });
      const out = scheduled.value;
      const totalMs = performance.now() - submittedAt;
      const result: ClassificationResult = {
        ...out,
        predictions: out.predictions.slice(0, job.topK),
        retried: scheduled.retried,
        timings: { ...out.timings, queueMs: scheduled.queueMs, totalMs },
      };
      const top = result.predictions[0];
      this.options.onRecord?.({
        ok: true, modelId, version: result.version, backend: result.backend, label: top?.label ?? '', score: top?.score ?? 0,
        batchSize: result.batchSize, coldStart: result.coldStart, ...(result.load ? { load: result.load } : {}), timings: result.timings,
      });
      return result;
    } catch (error) {
      const err = error instanceof Error ? error : new LanternError(String(error));
      this.options.onRecord?.({
        ok: false, modelId, errorCode: err instanceof LanternError ? err.code : 'INTERNAL', errorName: err.name, totalMs: performance.now() - submittedAt,
      });
      throw err;
    }
  }

  private async execute(modelId: string, jobs: Job[], slot: number, signal: AbortSignal): Promise<{ outcomes: (JobOutcome | Error)[] }> {
    try {
      return await this.executeOnce(modelId, jobs, slot, signal);
    } catch (error) {
      // The store quarantined a version that failed re-verification and activated the previous
      // good one (details.fallback): answer with that one instead of failing the request.
      if (!(error instanceof IntegrityError) || typeof error.details.fallback !== 'string') throw error;
      this.descriptors.set(modelId, await this.options.models.describe(modelId));
      const { outcomes } = await this.executeOnce(modelId, jobs, slot, signal);
      const note: Note = { kind: 'version-fallback', id: modelId, version: String(error.details.version ?? ''), fallback: error.details.fallback };
      return { outcomes: outcomes.map((o) => (o instanceof Error ? o : { ...o, notes: [note, ...o.notes] })) };
    }
  }

  private async executeOnce(modelId: string, jobs: Job[], slot: number, signal: AbortSignal): Promise<{ outcomes: (JobOutcome | Error)[] }> {
    const client = this.clients[slot]!;
    const descriptor = this.descriptors.get(modelId) ?? (await this.options.models.describe(modelId));
    const key = `${descriptor.id}@${descriptor.version}`;
    const held = (this.loadedKey[slot] ??= new Map());
    const previous = held.get(modelId);
    // A new version was activated (or rolled back): free the old session first.
    if (previous && previous !== key) await client.unload(previous).catch(() => undefined);
    const loadStarted = performance.now();
    let filesMs = 0;
    const { report, cold } = await client.ensureLoaded(key, async () => {
      const started = performance.now();
      const files = await this.options.models.files(modelId);
      filesMs = performance.now() - started;
      return files;
    }, signal);
    const loadMs = cold ? performance.now() - loadStarted : 0;
    held.set(modelId, key);
    const batch = await client.classify(key, jobs.map((j) => j.input), MAX_TOP_K, signal);
    if (batch.backend === 'webgpu') this.onGpu = true;
    const fallbacks = [batch.fallback, cold ? report.fallback : undefined].filter((r) => r !== undefined);
    const notes = fallbacks.map((reason): Note => ({ kind: 'backend-fallback', reason }));
    return {
      outcomes: batch.items.map((item) => {
        if (!item.ok) return deserializeError(item.error);
        return {
          modelId,
          version: descriptor.version,
          predictions: item.value.predictions,
          unsure: (item.value.predictions[0]?.score ?? 0) < report.unsureBelow,
          unsureBelow: report.unsureBelow,
          notes: [...item.value.notes, ...notes],
          backend: batch.backend,
          backendReason: batch.fallback ?? report.fallback ?? report.reason,
          ...(batch.fallback || report.fallback ? { fallback: batch.fallback ?? report.fallback } : {}),
          batchSize: batch.batchSize,
          coldStart: cold,
          ...(cold ? { load: { filesMs, createMs: report.createMs } } : {}),
          timings: { loadMs, preprocessMs: item.value.preprocessMs, inferenceMs: batch.inferenceMs, postprocessMs: batch.postprocessMs },
        };
      }),
    };
  }

  dispose(): void {
    for (const client of this.clients) client.dispose();
  }
}
