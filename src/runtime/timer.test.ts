import { afterEach, describe, expect, it, vi } from 'vitest';
import { after, withDeadline } from './timer.ts';

describe('after', () => {
  afterEach(() => vi.useRealTimers());

  it('waits out a delay past setTimeout\'s 32-bit limit (which fires such a timer at once)', () => {
    vi.useFakeTimers();
    const fired = vi.fn();
    const thirtyDays = 30 * 24 * 3600_000;
    after(thirtyDays, fired);
    vi.advanceTimersByTime(2 ** 31 - 1);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(thirtyDays - (2 ** 31 - 1) - 1);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fired).toHaveBeenCalledOnce();
  });

  it('never fires for an infinite delay, fires at once for a negative one, and is cancelled by what it returns', () => {
    vi.useFakeTimers();
    const never = vi.fn();
    const late = vi.fn();
    const cancelled = vi.fn();
    after(Infinity, never);
    after(-5, late);
    after(Number.MAX_SAFE_INTEGER, cancelled)();
    vi.advanceTimersByTime(0);
    expect(late).toHaveBeenCalledOnce();
    vi.advanceTimersByTime(1e13);
    expect(never).not.toHaveBeenCalled();
    expect(cancelled).not.toHaveBeenCalled();
  });
});

describe('withDeadline', () => {
  afterEach(() => vi.useRealTimers());

  /** Work that settles only when its signal aborts, with the signal's reason. */
  const untilAborted = (signal: AbortSignal) => new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason as Error);
    signal.addEventListener('abort', () => reject(signal.reason as Error));
  });

  it('gives up work at the deadline with its timeout, or with the caller\'s reason if the caller cancels first', async () => {
    vi.useFakeTimers();
    const timeout = new Error('too late');
    let late: unknown;
    const judged = withDeadline(undefined, 1000, timeout, untilAborted).catch((e: unknown) => (late = e));
    await vi.advanceTimersByTimeAsync(999);
    expect(late).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    await judged;
    expect(late).toBe(timeout);

    const caller = new AbortController();
    const left = new Error('the user left');
    const cancelled = withDeadline(caller.signal, 1000, timeout, untilAborted).catch((e: unknown) => e);
    caller.abort(left);
    expect(await cancelled).toBe(left);
    const already = new AbortController();
    already.abort(left);
    expect(await withDeadline(already.signal, 1000, timeout, untilAborted).catch((e: unknown) => e)).toBe(left);
  });

  it('passes on the work\'s own result or error, and stops its timer and following the caller once it settles', async () => {
    vi.useFakeTimers();
    const caller = new AbortController();
    let seen: AbortSignal | undefined;
    expect(await withDeadline(caller.signal, 1000, new Error('too late'), async (signal) => ((seen = signal), 42))).toBe(42);
    const failure = new Error('the work failed');
    expect(await withDeadline(caller.signal, 1000, new Error('too late'), () => Promise.reject(failure)).catch((e: unknown) => e)).toBe(failure);
    caller.abort();
    await vi.advanceTimersByTimeAsync(5000);
    expect(seen?.aborted).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });
});
