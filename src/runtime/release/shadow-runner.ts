import { isAbortError, LanternError } from '../errors.ts';
import type { ClassificationResult, ClassifyInput, PinnedVersion } from '../lantern.ts';
import type { ShadowBook } from './shadow-book.ts';
import { mayRunShadow, readyToPromote, withComparison, withError, withSkip, type ShadowFigures, type ShadowPolicy } from './shadow.ts';

/** A model's candidate in shadow, ready to run, with its release's promotion bar if it has one. */
export interface ShadowCandidate extends PinnedVersion {
  policy?: ShadowPolicy;
}

/** What the runner needs of the runtime (Lantern implements it). */
export interface ShadowRuntime {
  readonly queueDepth: number;
  readonly schedulerStats: { running: number };
  classifyPinned(target: PinnedVersion, input: ClassifyInput): Promise<ClassificationResult>;
}

export interface ShadowRunnerOptions {
  runtime: ShadowRuntime;
  /** The model's candidate in shadow, if any (read from the store; the runner caches it). */
  candidate(modelId: string): Promise<ShadowCandidate | undefined>;
  book: ShadowBook;
  hidden(): boolean;
  /** The candidate met its release's automatic promotion bar. */
  onReady?(candidate: ShadowCandidate, figures: ShadowFigures): void;
  /** Runs `fn` after the current task (default: a zero timeout), i.e. after the answer went out. */
  defer?(fn: () => void): void;
}

/** Errors that say the runtime was busy or going away, not that the candidate is bad. */
const NOT_THE_CANDIDATES_FAULT = new Set(['BUSY', 'CANCELLED', 'TIMEOUT', 'WORKER_CRASHED']);

/**
 * Runs each model's shadow candidate on the real requests its active version answered.
 * `observe` returns at once: the decision is taken after the answer has gone out, and a run
 * happens only on an idle runtime (release/shadow.ts, mayRunShadow); otherwise the request is
 * counted as skipped. The input is held only until that run ends and is never stored.
 */
export class ShadowRunner {
  private readonly candidates = new Map<string, Promise<ShadowCandidate | undefined>>();
  private inFlight = 0;
  /** Candidates already reported ready, so a promotion is asked for once. */
  private readonly announced = new Set<string>();
  private readonly defer: (fn: () => void) => void;

  constructor(private readonly options: ShadowRunnerOptions) {
    this.defer = options.defer ?? ((fn) => void setTimeout(fn, 0));
  }

  /** Forget cached candidates (after an install, promotion or rejection). */
  refresh(): void {
    this.candidates.clear();
  }

  observe(modelId: string, input: ClassifyInput, active: ClassificationResult): void {
    this.defer(() => void this.consider(modelId, input, active).catch(() => undefined));
  }

  private candidateOf(modelId: string): Promise<ShadowCandidate | undefined> {
    let known = this.candidates.get(modelId);
    if (!known) {
      known = this.options.candidate(modelId).catch(() => undefined);
      this.candidates.set(modelId, known);
    }
    return known;
  }

  private async consider(modelId: string, input: ClassifyInput, active: ClassificationResult): Promise<void> {
    const candidate = await this.candidateOf(modelId);
    // The candidate of another version than the one that answered would compare nothing useful.
    if (!candidate || candidate.descriptor.version === active.version) return;
    const { runtime, book } = this.options;
    const conditions = { hidden: this.options.hidden(), queued: runtime.queueDepth, running: runtime.schedulerStats.running, shadowInFlight: this.inFlight };
    if (!mayRunShadow(conditions)) {
      book.update(candidate.key, withSkip);
      return;
    }
    this.inFlight++;
    let figures: ShadowFigures;
    try {
      const shadow = await runtime.classifyPinned(candidate, input);
      figures = book.update(candidate.key, (f) => withComparison(f, {
        activeLabel: active.predictions[0]?.label ?? '',
        candidateLabel: shadow.predictions[0]?.label ?? '',
        activeMs: modelTime(active),
        candidateMs: modelTime(shadow),
      }));
    } catch (error) {
      const busy = isAbortError(error) || (error instanceof LanternError && NOT_THE_CANDIDATES_FAULT.has(error.code));
      figures = book.update(candidate.key, busy ? withSkip : withError);
    } finally {
      this.inFlight--;
    }
    if (candidate.policy && readyToPromote(figures, candidate.policy) && !this.announced.has(candidate.key)) {
      this.announced.add(candidate.key);
      this.options.onReady?.(candidate, figures);
    }
  }
}

/** Time the model itself took (queue and a cold load are the runtime's, not the version's). */
const modelTime = (r: ClassificationResult): number => r.timings.preprocessMs + r.timings.inferenceMs + r.timings.postprocessMs;
