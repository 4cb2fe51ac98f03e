import { afterEach, describe, expect, it, vi } from 'vitest';
import { after } from './timer.ts';

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
