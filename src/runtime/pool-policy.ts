/**
 * Which worker of the pool may take a batch, and when the backlog workers start.
 *
 * The first worker runs with every core as a WASM thread: a lone request gets ORT's intra-op
 * threads (ShuffleNet's run: ~11 ms on 2 threads against ~17 ms on 1). Under sustained load those
 * threads scale poorly. Measured on 2 cores, ShuffleNet with 4 requests in flight: one worker of 2
 * threads gave 1.29× the throughput of one worker of 1 thread, two workers of 1 thread each gave
 * 1.70× (medians of 7 interleaved repetitions). So once the first worker has been busy (no pause
 * longer than LOAD_GAP_MS) for SUSTAINED_LOAD_MS and is saturated (a batch waits in it behind another:
 * requests come faster than it answers), the pool warms its backlog workers for that model (they
 * split the cores between them), and while the load goes on the first worker rests for that
 * model. The two kinds never share the cores: the first worker of 2 threads running beside one of
 * 1 thread gave 1.30×, no better than the first worker alone (ORT's helper threads spin while they
 * wait). The first worker keeps its sessions, so a lone request after the load is as fast as
 * before it, and backlog workers stop after the pool's idle time like any worker.
 */
export interface PoolPolicyOptions {
  /** Workers beside the first one; 0 turns the backlog workers off. */
  backlogWorkers: number;
  /** Whether a worker is alive now (an idle-stopped or crashed worker holds no session). */
  running: (worker: number) => boolean;
  now?: () => number;
}

/**
 * How long the first worker's load must have lasted (no pause over LOAD_GAP_MS) before backlog
 * workers start. Their start is dear: on 2 cores, with them waking after 1 s, a burst of 100
 * ShuffleNet images took 3.5 s against 1.9 s for the first worker alone, and a burst of 400 took
 * 7.6–8.0 s against 7.4–7.8 s (their ORT compiles and sessions compete with the first worker's
 * run). So only a load this long, most likely to go on, pays for them.
 */
export const SUSTAINED_LOAD_MS = 10_000;

/** Backlog workers on a device of two cores or more, unless the app chooses otherwise. */
export const DEFAULT_BACKLOG_WORKERS = 2;

/**
 * An idle moment this short does not end a load: a page that sends its requests in rounds (each
 * round's answers, then the next round) leaves the first worker idle for a round trip between them.
 */
export const LOAD_GAP_MS = 250;

type Warmth = 'warming' | 'warm' | 'failed';

export class PoolPolicy {
  private readonly inFlight: number[];
  /** Per worker, the models it is warming or holds (a failed warm-up is not retried). */
  private readonly warmth: Map<string, Warmth>[];
  /** When the first worker's current load began (it has not been idle longer than LOAD_GAP_MS since). */
  private loadSince: number | undefined;
  /** When each worker last went idle; undefined while it is busy or before its first batch. */
  private readonly idleSince: (number | undefined)[];
  private readonly now: () => number;
  /** The backlog workers' indexes (1…n), asked for on every dispatch. */
  private readonly backlog: number[];

  constructor(private readonly options: PoolPolicyOptions) {
    this.inFlight = Array.from({ length: this.workers }, () => 0);
    this.backlog = Array.from({ length: this.workers - 1 }, (_, i) => i + 1);
    this.warmth = Array.from({ length: this.workers }, () => new Map());
    this.idleSince = Array.from({ length: this.workers }, () => undefined);
    this.now = options.now ?? (() => performance.now());
  }

  /** The first worker and the backlog workers. */
  get workers(): number {
    return 1 + Math.max(0, this.options.backlogWorkers);
  }

  /**
   * Once backlog workers are warm for a model, the first worker rests for it for as long as the
   * pool's load goes on (pauses up to LOAD_GAP_MS included), not only while one of them is busy: a
   * batching model's whole window of requests fits the first worker's two batches, so the warm
   * backlog workers never got a request (counted under the spam load of 64 in flight: every one of
   * 4,096 requests went to the first worker).
   */
  mayTake(worker: number, modelId: string): boolean {
    if (worker > 0) return this.isWarm(worker, modelId);
    return !(this.backlog.some((w) => this.isWarm(w, modelId)) && this.loadGoesOn());
  }

  started(worker: number): void {
    if (worker === 0 && this.inFlight[0] === 0) {
      const now = this.now();
      const idle = this.idleSince[0];
      if (this.loadSince === undefined || (idle !== undefined && now - idle > LOAD_GAP_MS)) this.loadSince = now;
    }
    this.idleSince[worker] = undefined;
    this.inFlight[worker]!++;
  }

  finished(worker: number): void {
    this.inFlight[worker]!--;
    if (this.inFlight[worker] === 0) this.idleSince[worker] = this.now();
  }

  /** Whether any worker is busy, or went idle no longer than a pause within a load ago. */
  private loadGoesOn(): boolean {
    const now = this.now();
    return this.inFlight.some((n, w) => n > 0 || now - (this.idleSince[w] ?? -Infinity) <= LOAD_GAP_MS);
  }

  /**
   * The backlog workers to warm for `modelId` now (each is then marked as warming): none unless
   * the first worker's load has lasted the sustained time and it holds more than one batch now.
   * (Not "requests wait in the queue": a batched model's batch takes everything waiting.)
   */
  toWarm(modelId: string): number[] {
    const since = this.loadSince;
    if (this.inFlight[0]! < 2 || since === undefined || this.now() - since < SUSTAINED_LOAD_MS) return [];
    const cold = this.backlog.filter((w) => {
      const state = this.warmth[w]!.get(modelId);
      return state === undefined || (state === 'warm' && !this.options.running(w));
    });
    for (const w of cold) this.warmth[w]!.set(modelId, 'warming');
    return cold;
  }

  warmed(worker: number, modelId: string, ok: boolean): void {
    this.warmth[worker]!.set(modelId, ok ? 'warm' : 'failed');
  }

  private isWarm(worker: number, modelId: string): boolean {
    return this.warmth[worker]!.get(modelId) === 'warm' && this.options.running(worker);
  }
}
