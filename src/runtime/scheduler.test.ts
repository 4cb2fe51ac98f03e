import { describe, expect, it, vi } from 'vitest';
import { Scheduler, type BatchRun } from './scheduler.ts';
import { BusyError, CancelledError, TimeoutError, WorkerCrashedError } from './errors.ts';

/**
 * A fake executor: the honest way to test scheduling logic. Each batch waits until the test
 * releases it, so the test controls exactly what is running and what is queued.
 */
class FakePool {
  batches: { modelId: string; inputs: number[]; slot: number; signal: AbortSignal; release: (r?: Error) => void }[] = [];
  execute = (modelId: string, inputs: number[], slot: number, signal: AbortSignal): Promise<BatchRun<number>> =>
    new Promise((resolve, reject) => {
      const entry = {
        modelId,
        inputs,
        slot,
        signal,
        release: (error?: Error) => (error ? reject(error) : resolve({ outcomes: inputs.map((x) => (x < 0 ? new Error(`bad ${x}`) : x * 10)) })),
      };
      signal.addEventListener('abort', () => reject(new CancelledError('batch aborted')));
      this.batches.push(entry);
    });
}

const tick = () => new Promise((r) => setTimeout(r, 0));

function make(pool: FakePool, overrides: Partial<ConstructorParameters<typeof Scheduler<number, number>>[0]> = {}) {
  return new Scheduler<number, number>({ execute: pool.execute, slots: 1, maxBatch: () => 4, maxQueued: 100, ...overrides });
}

describe('Scheduler', () => {
  it('batches what is submitted in one tick, then what queues behind a busy slot', async () => {
    const pool = new FakePool();
    const s = make(pool);
    const burst = [1, 2].map((x) => s.submit('m', x));
    await tick();
    expect(pool.batches.map((b) => b.inputs)).toEqual([[1, 2]]);
    pool.batches[0]!.release();
    expect((await Promise.all(burst)).map((r) => [r.value, r.batchSize])).toEqual([[10, 2], [20, 2]]);
  });

  it('dispatches a lone request at the end of its tick and batches what queues behind a busy slot', async () => {
    const pool = new FakePool();
    const s = make(pool);
    const first = s.submit('m', 1);
    await tick();
    const rest = [2, 3, 4, 5, 6].map((x) => s.submit('m', x));
    await tick();
    expect(pool.batches.map((b) => b.inputs)).toEqual([[1]]);
    pool.batches[0]!.release();
    expect((await first).value).toBe(10);
    await tick();
    expect(pool.batches[1]!.inputs).toEqual([2, 3, 4, 5]);
    pool.batches[1]!.release();
    await tick();
    expect(pool.batches[2]!.inputs).toEqual([6]);
    pool.batches[2]!.release();
    const results = await Promise.all(rest);
    expect(results.map((r) => r.value)).toEqual([20, 30, 40, 50, 60]);
    expect(results.map((r) => r.batchSize)).toEqual([4, 4, 4, 4, 1]);
  });

  it('never mixes models in a batch and respects maxBatch per model', async () => {
    const pool = new FakePool();
    const s = make(pool, { maxBatch: (m) => (m === 'fixed' ? 1 : 8) });
    const blocker = s.submit('m', 0);
    await tick();
    const all = [s.submit('fixed', 1), s.submit('m', 2), s.submit('fixed', 3), s.submit('m', 4)];
    await tick();
    pool.batches[0]!.release();
    await blocker;
    for (let i = 1; i < 4; i++) {
      await tick();
      pool.batches[i]!.release();
    }
    await Promise.all(all);
    expect(pool.batches.map((b) => [b.modelId, b.inputs])).toEqual([
      ['m', [0]],
      ['fixed', [1]],
      ['m', [2, 4]],
      ['fixed', [3]],
    ]);
  });

  it('lets interactive requests overtake background ones', async () => {
    const pool = new FakePool();
    const s = make(pool, { maxBatch: () => 1 });
    const blocker = s.submit('m', 0);
    await tick();
    const bg = s.submit('m', 1, { priority: 'background' });
    const fg = s.submit('m', 2, { priority: 'interactive' });
    await tick();
    pool.batches[0]!.release();
    await blocker;
    await tick();
    expect(pool.batches[1]!.inputs).toEqual([2]);
    pool.batches[1]!.release();
    await tick();
    pool.batches[2]!.release();
    await Promise.all([bg, fg]);
  });

  it('rejects with BusyError when the queue is full, without growing', async () => {
    const pool = new FakePool();
    const s = make(pool, { maxQueued: 3 });
    const running = s.submit('m', 0);
    await tick();
    const queued = [1, 2, 3].map((x) => s.submit('m', x));
    await expect(s.submit('m', 4)).rejects.toBeInstanceOf(BusyError);
    expect(s.depth).toBe(3);
    expect(s.stats.rejectedBusy).toBe(1);
    pool.batches[0]!.release();
    await running;
    await tick();
    pool.batches[1]!.release();
    await Promise.all(queued);
  });

  it('drops cancelled requests before they reach the model', async () => {
    const pool = new FakePool();
    const s = make(pool);
    const running = s.submit('m', 0);
    await tick();
    const controller = new AbortController();
    const cancelled = s.submit('m', 1, { signal: controller.signal });
    const kept = s.submit('m', 2);
    controller.abort();
    await expect(cancelled).rejects.toBeInstanceOf(CancelledError);
    await tick();
    pool.batches[0]!.release();
    await running;
    await tick();
    expect(pool.batches[1]!.inputs).toEqual([2]);
    pool.batches[1]!.release();
    await kept;
    await expect(s.submit('m', 3, { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(CancelledError);
  });

  it('resolves a request cancelled mid-run as cancelled, and aborts the batch only when all are gone', async () => {
    const pool = new FakePool();
    const s = make(pool);
    const blocker = s.submit('m', 0);
    await tick();
    const a = new AbortController();
    const b = new AbortController();
    const pa = s.submit('m', 1, { signal: a.signal });
    const pb = s.submit('m', 2, { signal: b.signal });
    await tick();
    pool.batches[0]!.release();
    await blocker;
    await tick();
    const batch = pool.batches[1]!;
    expect(batch.inputs).toEqual([1, 2]);
    a.abort();
    await expect(pa).rejects.toBeInstanceOf(CancelledError);
    expect(batch.signal.aborted).toBe(false);
    b.abort();
    await expect(pb).rejects.toBeInstanceOf(CancelledError);
    expect(batch.signal.aborted).toBe(true);
    // The slot is free again afterwards.
    const next = s.submit('m', 3);
    await tick();
    pool.batches[2]!.release();
    expect((await next).value).toBe(30);
  });

  it('expires requests whose deadline passes in the queue', async () => {
    const pool = new FakePool();
    const s = make(pool);
    const running = s.submit('m', 0);
    const late = s.submit('m', 1, { deadline: performance.now() + 5 });
    await expect(late).rejects.toBeInstanceOf(TimeoutError);
    await expect(s.submit('m', 2, { deadline: performance.now() - 1 })).rejects.toBeInstanceOf(TimeoutError);
    pool.batches[0]!.release();
    await running;
    await tick();
    expect(pool.batches).toHaveLength(1);
    expect(s.stats.timedOut).toBe(2);
  });

  it('counts a run time from dispatch: the wait in the queue, a pause included, does not count, and a crash retry gets the whole time again', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'queueMicrotask'] });
    try {
      const pool = new FakePool();
      const s = make(pool);
      s.pause();
      let outcome: unknown;
      const timed = s.submit('m', 1, { runTimeoutMs: 1_000 }).then((r) => (outcome = r.value), (e: unknown) => (outcome = e));
      await vi.advanceTimersByTimeAsync(60_000);
      expect(outcome).toBeUndefined();
      s.resume();
      await vi.advanceTimersByTimeAsync(0);
      expect(pool.batches).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(900);
      // The worker crashed 900 ms into the run: the retry's run has its own 1,000 ms.
      pool.batches[0]!.release(new WorkerCrashedError('crashed'));
      await vi.advanceTimersByTimeAsync(0);
      expect(pool.batches).toHaveLength(2);
      await vi.advanceTimersByTimeAsync(999);
      expect(outcome).toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);
      await timed;
      expect(outcome).toBeInstanceOf(TimeoutError);
      expect(pool.batches[1]!.signal.aborted).toBe(true);
      expect(s.stats.timedOut).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('rejects only the failing item of a batch', async () => {
    const pool = new FakePool();
    const s = make(pool);
    const blocker = s.submit('m', 0);
    await tick();
    const good = s.submit('m', 1);
    const bad = s.submit('m', -1);
    await tick();
    pool.batches[0]!.release();
    await blocker;
    await tick();
    pool.batches[1]!.release();
    expect((await good).value).toBe(10);
    await expect(bad).rejects.toThrow('bad -1');
  });

  it('retries once after a worker crash, then fails clearly', async () => {
    const pool = new FakePool();
    const s = make(pool);
    const p = s.submit('m', 7);
    await tick();
    pool.batches[0]!.release(new WorkerCrashedError('worker died'));
    await tick();
    expect(pool.batches).toHaveLength(2);
    pool.batches[1]!.release();
    const ok = await p;
    expect(ok.value).toBe(70);
    expect(ok.retried).toBe(true);

    const q = s.submit('m', 8);
    await tick();
    pool.batches[2]!.release(new WorkerCrashedError('worker died'));
    await tick();
    pool.batches[3]!.release(new WorkerCrashedError('worker died again'));
    await expect(q).rejects.toBeInstanceOf(WorkerCrashedError);
    expect(s.stats.crashed).toBe(1);
  });

  it('runs batches in parallel on all slots', async () => {
    const pool = new FakePool();
    const s = make(pool, { slots: 2, maxBatch: () => 1 });
    const ps = [1, 2, 3].map((x) => s.submit('m', x));
    await tick();
    expect(pool.batches.map((b) => b.slot)).toEqual([0, 1]);
    pool.batches[1]!.release();
    await tick();
    expect(pool.batches[2]!.slot).toBe(1);
    pool.batches[0]!.release();
    pool.batches[2]!.release();
    await Promise.all(ps);
  });

  it('gathers background batches for maxWaitMs, and not a millisecond less', async () => {
    vi.useFakeTimers({ now: 0, toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      const pool = new FakePool();
      const s = make(pool, { maxWaitMs: 20, maxBatch: () => 8, now: Date.now });
      const ps = [1, 2, 3].map((x) => s.submit('m', x, { priority: 'background' }));
      await vi.advanceTimersByTimeAsync(19);
      expect(pool.batches).toHaveLength(0);
      await vi.advanceTimersByTimeAsync(1);
      expect(pool.batches.map((b) => b.inputs)).toEqual([[1, 2, 3]]);
      pool.batches[0]!.release();
      await Promise.all(ps);
    } finally {
      vi.useRealTimers();
    }
  });

  it('resolves whenIdle only once nothing is queued or running', async () => {
    const pool = new FakePool();
    const s = make(pool);
    await s.whenIdle();
    const a = s.submit('m', 1);
    await tick();
    const b = s.submit('m', 2);
    let idle = false;
    void s.whenIdle().then(() => (idle = true));
    await tick();
    pool.batches[0]!.release();
    await a;
    await tick();
    expect(idle).toBe(false);
    pool.batches[1]!.release();
    await b;
    await tick();
    expect(idle).toBe(true);
  });

  it('gives a batch only to a slot allowed to take its model, and lets another model pass a blocked one', async () => {
    const pool = new FakePool();
    // Slot 1 takes nothing until it is opened; slot 0 takes only model b.
    let open = false;
    const s = make(pool, { slots: 2, maxBatch: () => 1, slotAvailable: (slot, modelId) => (slot === 0 ? modelId === 'b' : open) });
    const a = [1, 2].map((x) => s.submit('a', x));
    const b = s.submit('b', 3);
    await tick();
    // a waited longest, but no slot may take it: b does not wait behind it.
    expect(pool.batches.map((x) => [x.modelId, x.slot])).toEqual([['b', 0]]);
    open = true;
    s.slotsChanged();
    expect(pool.batches.map((x) => [x.modelId, x.slot])).toEqual([['b', 0], ['a', 1]]);
    for (let i = 0; i < 3; i++) {
      pool.batches[i]!.release();
      await tick();
    }
    expect((await Promise.all([...a, b])).map((r) => r.value)).toEqual([10, 20, 30]);
    expect(pool.batches.map((x) => x.slot)).toEqual([0, 1, 1]);
  });

  it('while paused queues without dispatching, keeps cancellation, and resumes in order', async () => {
    const pool = new FakePool();
    const s = make(pool);
    s.pause();
    const controller = new AbortController();
    const kept = [s.submit('m', 1), s.submit('m', 2)];
    const dropped = s.submit('m', 3, { signal: controller.signal });
    await tick();
    expect(pool.batches).toHaveLength(0);
    expect(s.depth).toBe(3);
    controller.abort();
    await expect(dropped).rejects.toBeInstanceOf(CancelledError);
    s.resume();
    await tick();
    expect(pool.batches.map((b) => b.inputs)).toEqual([[1, 2]]);
    pool.batches[0]!.release();
    expect((await Promise.all(kept)).map((r) => r.value)).toEqual([10, 20]);
  });

  it('lets a running batch finish when paused but starts nothing after it', async () => {
    const pool = new FakePool();
    const s = make(pool);
    const running = s.submit('m', 1);
    await tick();
    s.pause();
    const waiting = s.submit('m', 2);
    pool.batches[0]!.release();
    expect((await running).value).toBe(10);
    await tick();
    expect(pool.batches).toHaveLength(1);
    s.resume();
    await tick();
    pool.batches[1]!.release();
    expect((await waiting).value).toBe(20);
  });
  it('close() fails queued and running requests and later ones, and does not retry a crash it causes', async () => {
    const pool = new FakePool();
    const s = make(pool);
    const running = s.submit('m', 1);
    await tick();
    const queued = s.submit('m', 2);
    const disposed = new WorkerCrashedError('disposed');
    s.close(disposed);
    await expect(running).rejects.toBe(disposed);
    await expect(queued).rejects.toBe(disposed);
    expect(pool.batches[0]!.signal.aborted).toBe(true);
    // The executor's own crash report, as the terminated worker gives it, starts nothing new.
    pool.batches[0]!.release(new WorkerCrashedError('terminated'));
    await tick();
    expect(pool.batches).toHaveLength(1);
    await expect(s.submit('m', 3)).rejects.toBe(disposed);
    await s.whenIdle();
    expect(s.depth).toBe(0);
  });
});
