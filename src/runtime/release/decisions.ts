import { z } from 'zod/mini';
import { REASONS } from '../store/reason-catalog.ts';
import { fillReason } from '../store/reasons.ts';
import type { ModelRegistry } from '../store/registry.ts';
import type { ShadowBook } from './shadow-book.ts';
import { agreement, latencyRatio, type ShadowFigures } from './shadow.ts';
import { StoredValue, type KeyValueStorage } from './stored-value.ts';

/**
 * Promotion and rejection of shadow candidates, and the end of an evaluation that can no longer
 * compare anything, each recorded with the figures it was decided on (a local log of the last
 * decisions, and the rejected version's reason in the store).
 */
const DecisionSchema = z.object({
  key: z.string(),
  /** ended: the active version changed to one with other labels (end), so neither verdict was given. */
  decision: z.enum(['promoted', 'rejected', 'ended']),
  /** Decided by the release's own bar (manifest `shadow`), not by a person. */
  automatic: z.boolean(),
  at: z.string(),
  runs: z.int().check(z.nonnegative()),
  /** Top-1 agreement 0–1 (null before any run). */
  agreement: z.nullable(z.number()),
  latencyRatio: z.nullable(z.number()),
  errors: z.int().check(z.nonnegative()),
});
export type ReleaseDecision = z.infer<typeof DecisionSchema>;

/** Decisions kept: enough for a field audit, small enough for localStorage. */
const KEPT = 50;

/** A rejected candidate's reason in the store: its figures, a dash for one not measured (the same in every language). */
export function rejectionReason(f: ShadowFigures): string {
  const agreed = agreement(f);
  const ratio = latencyRatio(f);
  return fillReason(REASONS.shadowRejected, {
    runs: f.runs, agreement: agreed === undefined ? '–' : `${(100 * agreed).toFixed(1)}%`, latency: ratio === undefined ? '–' : `×${ratio.toFixed(2)}`, errors: f.errors,
  });
}

export class ReleaseDecisions {
  private readonly log: StoredValue<ReleaseDecision[]>;

  constructor(private readonly deps: {
    registry: Promise<ModelRegistry>;
    book: ShadowBook;
    storage: KeyValueStorage | undefined;
    /** After a decision: the shadow runner drops the candidate's session. */
    onDecided(key: string): void;
    now?: () => Date;
  }) {
    this.log = new StoredValue(deps.storage, 'lantern.releaseDecisions', z.array(DecisionSchema), []);
  }

  decisions(): ReleaseDecision[] {
    return this.log.value;
  }

  subscribe(listener: () => void): () => void {
    return this.log.subscribe(listener);
  }

  async promote(key: string, automatic = false): Promise<void> {
    const figures = this.deps.book.figures(key);
    await (await this.deps.registry).promote(key);
    this.record(key, 'promoted', automatic, figures);
  }

  async reject(key: string): Promise<void> {
    const figures = this.deps.book.figures(key);
    await (await this.deps.registry).rejectCandidate(key, rejectionReason(figures));
    this.record(key, 'rejected', false, figures);
  }

  /**
   * Ends `key`'s evaluation next to `active`, whose labels it does not have: the active version
   * changed since the candidate went in shadow (a rollback, an activation, an automatic rollback,
   * a quarantine), and top-1 agreement across two vocabularies would decide a promotion on
   * nothing (release/shadow.ts, comparableInShadow). Recorded as automatic, with its figures so far.
   */
  async end(key: string, active: string): Promise<void> {
    const figures = this.deps.book.figures(key);
    if (await (await this.deps.registry).endShadow(key, active)) this.record(key, 'ended', true, figures);
  }

  private record(key: string, decision: ReleaseDecision['decision'], automatic: boolean, f: ShadowFigures): void {
    const entry: ReleaseDecision = {
      key, decision, automatic, at: (this.deps.now?.() ?? new Date()).toISOString(),
      runs: f.runs, agreement: agreement(f) ?? null, latencyRatio: latencyRatio(f) ?? null, errors: f.errors,
    };
    this.log.set([entry, ...this.log.value].slice(0, KEPT));
    this.deps.book.forget(key);
    this.deps.onDecided(key);
  }
}
