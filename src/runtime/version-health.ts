import { REJECTION_CODES } from './errors.ts';
import { FAILING_REASON, fillReason } from './store/reasons.ts';

/**
 * Watches real-use outcomes per model version and says when one should be rolled back.
 *
 * Policy (documented in SECURITY.md / README): over the last `window` requests of a version,
 * at least `minRequests` were seen and at least `failureRate` of them failed. Only failures that
 * are the version's fault count: bad input and backpressure/cancellation/timeouts do not.
 * Trips once per version; its window is then discarded.
 */
export interface HealthPolicy {
  window: number;
  minRequests: number;
  failureRate: number;
}
const DEFAULT_HEALTH_POLICY: HealthPolicy = { window: 20, minRequests: 5, failureRate: 0.5 };

/** Error codes that say nothing about the model version (a runtime that could not start neither). */
const NOT_THE_MODELS_FAULT = new Set(['INPUT', 'RUNTIME_UNAVAILABLE', ...REJECTION_CODES]);

export const countsAgainstVersion = (errorCode: string): boolean => !NOT_THE_MODELS_FAULT.has(errorCode);

export class VersionHealth {
  private readonly outcomes = new Map<string, boolean[]>();
  private readonly tripped = new Set<string>();

  constructor(private readonly policy: HealthPolicy = DEFAULT_HEALTH_POLICY) {}

  /** Records one outcome of `key` (`id@version`); returns why, when the version should be rolled back. */
  observe(key: string, ok: boolean): string | undefined {
    if (this.tripped.has(key)) return undefined;
    const list = this.outcomes.get(key) ?? [];
    list.push(ok);
    if (list.length > this.policy.window) list.shift();
    this.outcomes.set(key, list);
    const failed = list.filter((x) => !x).length;
    if (list.length < this.policy.minRequests || failed / list.length < this.policy.failureRate) return undefined;
    this.tripped.add(key);
    this.outcomes.delete(key);
    return fillReason(FAILING_REASON, { failed, total: list.length });
  }
}
