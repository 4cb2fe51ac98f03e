import type { ModelRegistry } from '../store/registry.ts';
import { ReleaseDecisions } from './decisions.ts';
import { followStore } from './follow-store.ts';
import type { ModelSettings } from './model-settings.ts';
import { ShadowBook } from './shadow-book.ts';
import { ShadowRunner, type ShadowCandidate, type ShadowRuntime } from './shadow-runner.ts';
import type { KeyValueStorage } from './stored-value.ts';

/** What the release controls are wired to (releaseControls). */
export interface ReleaseControlsDeps {
  /** The runtime, once created (it takes `settings` and the controls' `observe`). */
  runtime: () => ShadowRuntime;
  registry: Promise<ModelRegistry>;
  candidate(modelId: string): Promise<ShadowCandidate | undefined>;
  storage: KeyValueStorage | undefined;
  hidden(): boolean;
}

/** Shadow evaluation: each candidate's figures, the runner that makes them, and the release decisions taken on them. */
export interface ShadowEvaluation {
  shadow: ShadowBook;
  runner: ShadowRunner;
  decisions: ReleaseDecisions;
}

/** Starts shadow evaluation, kept in step with the store, with the settings it follows too (followStore). */
export function startEvaluation(deps: ReleaseControlsDeps, settings: ModelSettings): ShadowEvaluation {
  const shadow = new ShadowBook(deps.storage);
  const runner: ShadowRunner = new ShadowRunner({
    runtime: {
      get queueDepth() { return deps.runtime().queueDepth; },
      get schedulerStats() { return deps.runtime().schedulerStats; },
      candidate: (descriptor, files) => deps.runtime().candidate(descriptor, files),
    },
    candidate: (id) => deps.candidate(id),
    book: shadow,
    hidden: deps.hidden,
    // The release's own bar was met: promote without asking (recorded as automatic).
    onReady: (candidate) => void decisions.promote(candidate.key, true).catch(() => undefined),
  });
  const decisions = new ReleaseDecisions({
    registry: deps.registry,
    book: shadow,
    storage: deps.storage,
    // A promotion reaches the runtime through the registry's notification (ModelSource.subscribe).
    onDecided: () => runner.refresh(),
  });
  void deps.registry.then((registry) => followStore(registry, { settings, shadow, runner, decisions }));
  return { shadow, runner, decisions };
}
