/**
 * Shadow evaluation: a candidate version runs on real requests next to the active one, its
 * answers never shown, and only figures are kept — how often it ran, how often its top label
 * agreed with the active version's, its latency relative to the active one, its errors and both
 * label distributions. Inputs are compared on the fly and never stored. Framework-free: the
 * runner (shadow-runner.ts) feeds it; the Models and Metrics screens read it.
 */

import { sameLabels } from './fallback.ts';
import { countOf } from '../labels.ts';

/**
 * Whether a candidate can be evaluated in shadow next to the active version: only when it speaks
 * the same labels. The figures compare top-1 labels by name, so against other labels "agreement"
 * would be an accident (a renamed class never agrees, an added one agrees by chance) and the
 * release's promotion bar would decide on nothing. The store applies it when installing
 * (store/registry.ts), before any byte of the candidate is downloaded.
 */
export function comparableInShadow(active: readonly string[], candidate: readonly string[]): boolean {
  return sameLabels(active, candidate);
}

/** What the runtime looks like when a shadow run is considered. */
export interface ShadowConditions {
  /** The page is hidden: inference is paused, and a hidden tab must not spend battery. */
  hidden: boolean;
  /** Requests waiting in the scheduler. */
  queued: number;
  /** Batches running on the workers. */
  running: number;
  /** Shadow runs already queued or running. */
  shadowInFlight: number;
}

/**
 * A shadow run may start only on an idle runtime: nothing queued, nothing running, no other
 * shadow run, page visible. Anything else is load, and the candidate yields to real requests.
 */
export function mayRunShadow(c: ShadowConditions): boolean {
  return !c.hidden && c.queued === 0 && c.running === 0 && c.shadowInFlight === 0;
}

/** The figures of one candidate (all counts; labels are the model's own vocabulary). */
export interface ShadowFigures {
  /** Comparisons made (the candidate answered). */
  runs: number;
  /** Runs whose top label equalled the active version's. */
  agreements: number;
  /** Runs where the candidate failed. */
  errors: number;
  /** Real requests that had no shadow run because the runtime was busy or hidden. */
  skipped: number;
  /** Model time (preprocess + inference + postprocess) summed over compared runs, ms. */
  activeMs: number;
  candidateMs: number;
  activeLabels: Record<string, number>;
  candidateLabels: Record<string, number>;
}

export const emptyFigures = (): ShadowFigures => ({ runs: 0, agreements: 0, errors: 0, skipped: 0, activeMs: 0, candidateMs: 0, activeLabels: {}, candidateLabels: {} });

export interface Comparison {
  activeLabel: string;
  candidateLabel: string;
  activeMs: number;
  candidateMs: number;
}

const bump = (counts: Record<string, number>, label: string): Record<string, number> => ({ ...counts, [label]: countOf(counts, label) + 1 });

export function withComparison(f: ShadowFigures, c: Comparison): ShadowFigures {
  return {
    ...f,
    runs: f.runs + 1,
    agreements: f.agreements + (c.activeLabel === c.candidateLabel ? 1 : 0),
    activeMs: f.activeMs + c.activeMs,
    candidateMs: f.candidateMs + c.candidateMs,
    activeLabels: bump(f.activeLabels, c.activeLabel),
    candidateLabels: bump(f.candidateLabels, c.candidateLabel),
  };
}

export const withError = (f: ShadowFigures): ShadowFigures => ({ ...f, errors: f.errors + 1 });
export const withSkip = (f: ShadowFigures): ShadowFigures => ({ ...f, skipped: f.skipped + 1 });

/** Top-1 agreement (0–1), or undefined before the first run. */
export const agreement = (f: ShadowFigures): number | undefined => (f.runs > 0 ? f.agreements / f.runs : undefined);

/** Candidate time over active time (2 = twice as slow), or undefined before it can be told. */
export const latencyRatio = (f: ShadowFigures): number | undefined => (f.runs > 0 && f.activeMs > 0 ? f.candidateMs / f.activeMs : undefined);

/** A release's own promotion bar (the signed manifest's `shadow` field). */
export interface ShadowPolicy {
  minRuns: number;
  minAgreement: number;
}

/**
 * Automatic promotion: enough runs, agreement at or above the bar, and not a single error — a
 * candidate that failed even once in shadow waits for a person to decide.
 */
export function readyToPromote(f: ShadowFigures, policy: ShadowPolicy): boolean {
  return f.runs >= policy.minRuns && f.errors === 0 && (agreement(f) ?? 0) >= policy.minAgreement;
}
