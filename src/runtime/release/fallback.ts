import { LanternError, type ErrorCode } from '../errors.ts';

/**
 * Fallback models: when the requested (primary) model cannot answer, another installed model
 * with the same labels answers instead and the result says so.
 *
 * "Cannot answer" means the model or its runtime failed, not the request: a load failure, a
 * missing or quarantined model with no previous version, a GPU device loss that the WASM retry
 * did not fix, or the primary's share of the deadline running out. Bad input,
 * cancellation, backpressure (the fallback would only add load) and worker crashes (usually the
 * input's fault, e.g. an image too large for memory, and already retried once) do not trigger it.
 */
const TRIGGERS: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['MODEL_LOAD', 'INTEGRITY', 'DEVICE_LOST', 'TIMEOUT']);

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

/** A fallback must speak the same labels (in any order), or its answer would mean something else. */
export function sameLabels(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const set = new Set(a);
  return b.every((label) => set.has(label));
}
