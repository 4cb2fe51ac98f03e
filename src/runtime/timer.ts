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
