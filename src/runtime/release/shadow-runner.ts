import { isAbortError, LanternError } from '../errors.ts';
import type { CandidateRun, ClassificationResult, LanternInput } from '../lantern.ts';
import type { ModelDescriptor } from '../model-source.ts';
import type { ModelFiles } from '../protocol.ts';
import type { ShadowBook } from './shadow-book.ts';
import { mayRunShadow, readyToPromote, withComparison, withError, withSkip, type ShadowFigures, type ShadowPolicy } from './shadow.ts';

/** A model's candidate in shadow, with its release's promotion bar if it has one. */
export interface ShadowCandidate {
  /** `id@version`. */
  key: string;
  descriptor: ModelDescriptor;
  /** Its verified files, read from the store on each load. */
  files(): Promise<ModelFiles>;
  policy?: ShadowPolicy;
}

/** What the runner needs of the runtime (Lantern implements it). */
export interface ShadowRuntime {
  readonly queueDepth: number;
  readonly schedulerStats: { running: number };
  candidate(descriptor: ModelDescriptor, files: () => Promise<ModelFiles>): CandidateRun;
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
  /** Each candidate's run in the runtime (its own session), kept until the next refresh. */
  private readonly runs = new Map<string, CandidateRun>();
  private inFlight = 0;
  /** Candidates already reported ready, so a promotion is asked for once. */
  private readonly announced = new Set<string>();
  private readonly defer: (fn: () => void) => void;

  constructor(private readonly options: ShadowRunnerOptions) {
    this.defer = options.defer ?? ((fn) => void setTimeout(fn, 0));
  }

  /** Forget cached candidates and free their sessions (after an install, promotion or rejection). */
  refresh(): void {
    this.candidates.clear();
    for (const run of this.runs.values()) void run.close();
    this.runs.clear();
  }

  observe(modelId: string, input: LanternInput, active: ClassificationResult): void {
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

  private runOf(candidate: ShadowCandidate): CandidateRun {
    let run = this.runs.get(candidate.key);
    if (!run) {
      run = this.options.runtime.candidate(candidate.descriptor, () => candidate.files());
      this.runs.set(candidate.key, run);
    }
    return run;
  }

  private async consider(modelId: string, input: LanternInput, active: ClassificationResult): Promise<void> {
    const lookup = this.candidateOf(modelId);
    const candidate = await lookup;
    // The candidate of another version than the one that answered would compare nothing useful.
    if (!candidate || candidate.descriptor.version === active.version) return;
    const { runtime, book } = this.options;
    // A candidate refreshed away meanwhile (removed, promoted, rejected) has no figures any more:
    // recording into them would bring back a book entry for a version that is gone.
    const record = (change: (f: ShadowFigures) => ShadowFigures) => (this.candidates.get(modelId) === lookup ? book.update(candidate.key, change) : undefined);
    const conditions = { hidden: this.options.hidden(), queued: runtime.queueDepth, running: runtime.schedulerStats.running, shadowInFlight: this.inFlight };
    if (!mayRunShadow(conditions)) {
      record(withSkip);
      return;
    }
    this.inFlight++;
    let figures: ShadowFigures | undefined;
    try {
      // Background priority: real requests always go first. Never recorded in the metrics.
      const shadow = await this.runOf(candidate).classify(input, { priority: 'background', topK: 1 });
      figures = record((f) => withComparison(f, {
        activeLabel: active.predictions[0]?.label ?? '',
        candidateLabel: shadow.predictions[0]?.label ?? '',
        activeMs: modelTime(active),
        candidateMs: modelTime(shadow),
      }));
    } catch (error) {
      const busy = isAbortError(error) || (error instanceof LanternError && NOT_THE_CANDIDATES_FAULT.has(error.code));
      figures = record(busy ? withSkip : withError);
    } finally {
      this.inFlight--;
    }
    if (figures && candidate.policy && readyToPromote(figures, candidate.policy) && !this.announced.has(candidate.key)) {
      this.announced.add(candidate.key);
      this.options.onReady?.(candidate, figures);
    }
  }
}

/** Time the model itself took (queue and a cold load are the runtime's, not the version's). */
const modelTime = (r: ClassificationResult): number => r.timings.preprocessMs + r.timings.inferenceMs + r.timings.postprocessMs;
