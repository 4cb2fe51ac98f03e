/** setTimeout counts its delay in a signed 32-bit number of milliseconds: a longer one fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Runs `fn` once `delayMs` have passed, as setTimeout does, for any delay a caller may give: one
 * past ~24.8 days is waited out in steps, and an infinite one (an app's "no deadline") never
 * fires. Returns what cancels it.
 */
export function after(delayMs: number, fn: () => void): () => void {
  if (delayMs === Infinity) return () => undefined;
  let left = Math.max(0, delayMs);
  let timer: ReturnType<typeof setTimeout>;
  const arm = () => {
    const step = Math.min(left, MAX_TIMER_MS);
    left -= step;
    timer = setTimeout(left > 0 ? arm : fn, step);
  };
  arm();
  return () => clearTimeout(timer);
}

/**
 * Runs `work` with a signal that aborts with `timeout` once `delayMs` have passed (after), or with
 * `signal`'s own reason if that aborts first: a deadline on top of a caller's cancel, passed on by
 * hand because AbortSignal.any is newer than Safari 17.4. Work given up at the deadline rejects
 * with `timeout`.
 */
export async function withDeadline<T>(signal: AbortSignal | undefined, delayMs: number, timeout: Error, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const stop = new AbortController();
  const cancel = () => stop.abort(signal?.reason);
  const cancelTimer = after(delayMs, () => stop.abort(timeout));
  if (signal?.aborted) cancel();
  signal?.addEventListener('abort', cancel, { once: true });
  try {
    return await work(stop.signal);
  } catch (error) {
    throw stop.signal.reason === timeout ? timeout : error;
  } finally {
    cancelTimer();
    signal?.removeEventListener('abort', cancel);
  }
}
