import { BusyError, cancelledBy, LanternError, TimeoutError, WorkerCrashedError, worthAFreshWorker } from './errors.ts';
import { after } from './timer.ts';

/**
 * Request scheduling: bounded per-model queues with two priorities, continuous batching onto a
 * fixed number of execution slots (one per worker), deadlines, cancellation and backpressure.
 *
 * Batching is adaptive rather than timed: requests submitted in the same tick (a burst, a list)
 * leave together as one batch as soon as the tick ends and a slot is free (no timer, no added
 * latency), and whatever queued while every slot was busy leaves as one batch (up to maxBatch)
 * when a slot frees up. A pool gives each worker two slots, so the worker's next batch is
 * already waiting in it while the current one runs. `maxWaitMs` can add a gathering delay for
 * background traffic, where throughput matters more than latency.
 */
export type Priority = 'interactive' | 'background';

export interface ScheduleOptions {
  priority?: Priority;
  /** Absolute time (performance.now() clock) after which the request is useless. */
  deadline?: number;
  /**
   * How long the request may run once its batch is dispatched (TimeoutError after): its wait in
   * the queue, a hidden page's pause included, does not count. For a check that a run ends (the
   * validation gate, the PWA's hung-model guard), not for a user's deadline.
   */
  runTimeoutMs?: number;
  signal?: AbortSignal;
}

export interface BatchRun<O> {
  /** One outcome per input, in order; an Error rejects just that request. */
  outcomes: (O | Error)[];
}

/** Runs one batch for one model on execution slot `slot`; must reject when `signal` aborts. */
export type BatchExecutor<I, O> = (modelId: string, inputs: I[], slot: number, signal: AbortSignal) => Promise<BatchRun<O>>;

export interface SchedulerOptions<I, O> {
  execute: BatchExecutor<I, O>;
  /** Parallel batches (the worker pool size). */
  slots: number;
  /** Largest batch per model; 1 for models with a fixed batch dimension. */
  maxBatch: (modelId: string) => number;
  /** Requests waiting across all models before BusyError. */
  maxQueued: number;
  /** Extra wait to gather background batches (ms). */
  maxWaitMs?: number;
  /**
   * Whether an idle slot may take a batch of `modelId` now: lets a pool keep workers cold until
   * a backlog needs them, or rest one while others serve (pool-policy.ts). Default: yes. When the
   * answer changes without a slot freeing up, call `slotsChanged()`.
   */
  slotAvailable?: (slot: number, modelId: string) => boolean;
  now?: () => number;
}

export interface Scheduled<O> {
  value: O;
  queueMs: number;
  batchSize: number;
  /** Set when the request ran twice because its first worker crashed. */
  retried: boolean;
}

interface Pending<I, O> {
  modelId: string;
  input: I;
  priority: Priority;
  deadline?: number;
  runTimeoutMs: number | undefined;
  /** Cancels the run time armed at its (latest) dispatch. */
  cancelRunTimer?: () => void;
  signal?: AbortSignal;
  enqueuedAt: number;
  retried: boolean;
  settled: boolean;
  resolve: (value: Scheduled<O>) => void;
  reject: (error: Error) => void;
  cleanup: () => void;
  /** Set while running: lets the batch abort once all its requests are settled. */
  onSettledEarly?: () => void;
}

interface ModelQueue<I, O> {
  interactive: Pending<I, O>[];
  background: Pending<I, O>[];
}

export interface SchedulerStats {
  queued: number;
  running: number;
  rejectedBusy: number;
  cancelled: number;
  timedOut: number;
  crashed: number;
}

export class Scheduler<I, O> {
  private readonly queues = new Map<string, ModelQueue<I, O>>();
  private readonly freeSlots: number[];
  private queued = 0;
  /** Batches running now. */
  private readonly running = new Set<Pending<I, O>[]>();
  /** Set by close(): what every request fails with from then on. */
  private closed?: Error;
  private timer?: ReturnType<typeof setTimeout>;
  private pumpQueued = false;
  private idleWaiters: (() => void)[] = [];
  private paused = false;
  private readonly now: () => number;
  readonly stats: SchedulerStats = { queued: 0, running: 0, rejectedBusy: 0, cancelled: 0, timedOut: 0, crashed: 0 };

  constructor(private readonly options: SchedulerOptions<I, O>) {
    this.freeSlots = Array.from({ length: options.slots }, (_, i) => i);
    this.now = options.now ?? (() => performance.now());
  }

  submit(modelId: string, input: I, options: ScheduleOptions = {}): Promise<Scheduled<O>> {
    const { signal, deadline } = options;
    if (this.closed) return Promise.reject(this.closed);
    if (signal?.aborted) {
      this.stats.cancelled++;
      return Promise.reject(cancelledBy(signal));
    }
    if (deadline !== undefined && deadline <= this.now()) {
      this.stats.timedOut++;
      return Promise.reject(new TimeoutError('The request expired before it was queued.'));
    }
    if (this.queued >= this.options.maxQueued) {
      this.stats.rejectedBusy++;
      return Promise.reject(new BusyError(`Lantern is busy (${this.queued} requests waiting); try again shortly.`, { queued: this.queued }));
    }
    return new Promise<Scheduled<O>>((resolve, reject) => {
      const pending: Pending<I, O> = {
        modelId,
        input,
        priority: options.priority ?? 'interactive',
        deadline,
        runTimeoutMs: options.runTimeoutMs,
        signal,
        enqueuedAt: this.now(),
        retried: false,
        settled: false,
        resolve,
        reject,
        cleanup: () => undefined,
      };
      const onAbort = () => this.fail(pending, cancelledBy(signal), 'cancelled');
      signal?.addEventListener('abort', onAbort, { once: true });
      const cancelDeadline = deadline !== undefined
        ? after(deadline - this.now(), () => this.fail(pending, new TimeoutError('The request missed its deadline.'), 'timedOut'))
        : undefined;
      pending.cleanup = () => {
        signal?.removeEventListener('abort', onAbort);
        cancelDeadline?.();
        pending.cancelRunTimer?.();
      };
      this.enqueue(pending);
      this.pumpAfterTick();
    });
  }

  /** Dispatches once the current tick's submissions are all queued, so they batch together. */
  private pumpAfterTick(): void {
    if (this.pumpQueued) return;
    this.pumpQueued = true;
    queueMicrotask(() => {
      this.pumpQueued = false;
      this.pump();
    });
  }

  private queueFor(modelId: string): ModelQueue<I, O> {
    let queue = this.queues.get(modelId);
    if (!queue) {
      queue = { interactive: [], background: [] };
      this.queues.set(modelId, queue);
    }
    return queue;
  }

  private enqueue(pending: Pending<I, O>, front = false): void {
    const list = this.queueFor(pending.modelId)[pending.priority];
    if (front) list.unshift(pending);
    else list.push(pending);
    this.queued++;
    this.stats.queued = this.queued;
  }

  /** Settles a request early (cancel/timeout); a queued one is dropped and never runs. */
  private fail(pending: Pending<I, O>, error: Error, counter: 'cancelled' | 'timedOut' | 'crashed'): void {
    if (pending.settled) return;
    pending.settled = true;
    pending.cleanup();
    this.stats[counter]++;
    const queue = this.queues.get(pending.modelId);
    const list = queue?.[pending.priority];
    const at = list?.indexOf(pending) ?? -1;
    if (list && at >= 0) {
      list.splice(at, 1);
      this.queued--;
      this.stats.queued = this.queued;
    }
    pending.reject(error);
    pending.onSettledEarly?.();
    this.notifyIdle();
  }

  /** Resolves once nothing is queued or running (e.g. before swapping the app's code). */
  whenIdle(): Promise<void> {
    if (this.queued === 0 && this.running.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private notifyIdle(): void {
    if (this.queued !== 0 || this.running.size !== 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  /**
   * Stops dispatching (the page is hidden): requests keep queueing, deadlines and cancellation
   * still apply, batches already running finish. `resume` dispatches what waited.
   */
  pause(): void {
    this.paused = true;
  }

  /**
   * Fails every request, queued or running, with `error`, and every later one (the runtime was
   * disposed). A running batch's executor is aborted; a crash it reports is not retried.
   */
  close(error: Error): void {
    this.closed = error;
    const queued = [...this.queues.values()].flatMap((queue) => [...queue.interactive, ...queue.background]);
    const running = [...this.running].flat();
    for (const pending of [...queued, ...running]) this.fail(pending, error, 'crashed');
  }

  /** Dispatches what waits, now that `slotAvailable` may answer differently. */
  slotsChanged(): void {
    this.pump();
  }

  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    this.pump();
  }

  /**
   * Picks the model whose head request has waited longest, interactive before background, among
   * those not `blocked` (no slot may take them now: another model's requests must not wait behind them).
   */
  private nextModel(blocked?: ReadonlySet<string>): { modelId: string; ready: boolean } | undefined {
    let best: { modelId: string; at: number; interactive: boolean } | undefined;
    for (const [modelId, queue] of this.queues) {
      const head = queue.interactive[0] ?? queue.background[0];
      if (!head || blocked?.has(modelId)) continue;
      const interactive = queue.interactive.length > 0;
      if (!best || (interactive && !best.interactive) || (interactive === best.interactive && head.enqueuedAt < best.at)) {
        best = { modelId, at: head.enqueuedAt, interactive };
      }
    }
    if (!best) return undefined;
    const queue = this.queues.get(best.modelId)!;
    const wait = this.options.maxWaitMs ?? 0;
    const size = queue.interactive.length + queue.background.length;
    const ready = best.interactive || wait <= 0 || size >= this.options.maxBatch(best.modelId) || this.now() - best.at >= wait;
    return { modelId: best.modelId, ready };
  }

  /** The lowest free slot allowed to take work, removed from the free list. */
  private takeSlot(modelId: string): number | undefined {
    this.freeSlots.sort((a, b) => a - b);
    const at = this.freeSlots.findIndex((slot) => this.options.slotAvailable?.(slot, modelId) ?? true);
    return at < 0 ? undefined : this.freeSlots.splice(at, 1)[0];
  }

  private pump(): void {
    let blocked: Set<string> | undefined;
    while (!this.paused && this.freeSlots.length > 0) {
      const next = this.nextModel(blocked);
      if (!next) return;
      if (!next.ready) {
        this.armTimer();
        return;
      }
      const slot = this.takeSlot(next.modelId);
      if (slot === undefined) {
        (blocked ??= new Set()).add(next.modelId);
        continue;
      }
      const queue = this.queues.get(next.modelId)!;
      const max = Math.max(1, this.options.maxBatch(next.modelId));
      const batch: Pending<I, O>[] = [];
      for (const list of [queue.interactive, queue.background]) {
        while (batch.length < max && list.length > 0) batch.push(list.shift()!);
      }
      this.queued -= batch.length;
      this.stats.queued = this.queued;
      this.dispatch(next.modelId, batch, slot);
    }
  }

  private armTimer(): void {
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.pump();
    }, this.options.maxWaitMs ?? 0);
  }

  private dispatch(modelId: string, batch: Pending<I, O>[], slot: number): void {
    const startedAt = this.now();
    const controller = new AbortController();
    // The batch is aborted (terminate-to-cancel) only when every request in it is gone.
    const abortIfAllGone = () => {
      if (batch.every((p) => p.settled)) controller.abort();
    };
    for (const p of batch) {
      p.onSettledEarly = abortIfAllGone;
      if (p.runTimeoutMs === undefined) continue;
      // Armed again on a crash retry's dispatch: the fresh worker's run gets the whole time.
      p.cancelRunTimer?.();
      p.cancelRunTimer = after(p.runTimeoutMs, () => this.fail(p, new TimeoutError(`The request ran longer than ${p.runTimeoutMs} ms.`), 'timedOut'));
    }
    this.running.add(batch);
    this.stats.running = this.running.size;
    const finish = () => {
      for (const p of batch) p.onSettledEarly = undefined;
      this.running.delete(batch);
      this.stats.running = this.running.size;
      this.freeSlots.push(slot);
      this.pump();
      this.notifyIdle();
    };
    this.options
      .execute(modelId, batch.map((p) => p.input), slot, controller.signal)
      .then(({ outcomes }) => {
        batch.forEach((p, i) => {
          if (p.settled) return;
          p.settled = true;
          p.cleanup();
          const outcome = outcomes[i];
          if (outcome instanceof Error) p.reject(outcome);
          else if (outcome === undefined) p.reject(new LanternError('The worker returned no result for this request.'));
          else p.resolve({ value: outcome, queueMs: startedAt - p.enqueuedAt, batchSize: batch.length, retried: p.retried });
        });
      })
      .catch((error: unknown) => {
        const err = error instanceof Error ? error : new LanternError(String(error));
        for (const p of batch) {
          if (p.settled) continue;
          if (worthAFreshWorker(err) && !p.retried) {
            // Classification is idempotent: it gets one more try on a fresh worker.
            p.retried = true;
            this.enqueue(p, true);
          } else if (err instanceof WorkerCrashedError) {
            this.fail(p, err, 'crashed');
          } else {
            p.settled = true;
            p.cleanup();
            p.reject(err);
          }
        }
      })
      .finally(finish);
  }

  /** Requests waiting (not running). */
  get depth(): number {
    return this.queued;
  }
}
