import { LanternError, type ErrorCode } from '../errors.ts';

/**
 * Fallback models: when the requested (primary) model cannot answer, another installed model
 * with the same labels answers instead and the result says so.
 *
 * "Cannot answer" means the model or its runtime failed, not the request: a load failure, a
 * graph that fails to run, a missing or quarantined model with no previous version, a GPU device
 * loss that the WASM retry did not fix, or the primary's share of the deadline running out. Bad input,
 * cancellation, backpressure (the fallback would only add load) and worker crashes (usually the
 * input's fault, e.g. an image too large for memory, and already retried once) do not trigger it.
 */
const TRIGGERS: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['MODEL_LOAD', 'MODEL_RUN', 'INTEGRITY', 'DEVICE_LOST', 'TIMEOUT']);

/** The error code that lets a fallback answer, or undefined when it must not. */
export function fallbackTrigger(error: unknown): ErrorCode | undefined {
  return error instanceof LanternError && TRIGGERS.has(error.code) ? error.code : undefined;
}

/**
 * With a fallback and a timeout, the primary gets this share of the time so the fallback still
 * has the rest; without a fallback the primary gets it all.
 */
export const PRIMARY_SHARE = 0.5;

export function primaryDeadline(submittedAt: number, timeoutMs: number | undefined, hasFallback: boolean): number | undefined {
  if (timeoutMs === undefined) return undefined;
  return submittedAt + (hasFallback ? timeoutMs * PRIMARY_SHARE : timeoutMs);
}

/**
 * Whether a fallback speaking `fallback` may answer for a primary that speaks `primary`: the same
 * labels, or its answer would mean something else. The primary's labels are those of its
 * descriptor or, when it cannot be described now (quarantined with nothing to hand over to: the
 * very case a fallback is for), the ones it last answered in (ModelSource.lastLabels). When they
 * are unknown the fallback does not answer: the primary's own error is the truthful answer.
 */
export function mayAnswerFor(primary: readonly string[] | undefined, fallback: readonly string[] | undefined): boolean {
  return primary !== undefined && fallback !== undefined && sameLabels(primary, fallback);
}

/** The same labels (in any order). */
export function sameLabels(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const set = new Set(a);
  return b.every((label) => set.has(label));
}
