import { loadChunk } from '../field/lazy-chunk.ts';
import type { ModelRegistry } from '../store/registry.ts';
import { ReleaseDecisions } from './decisions.ts';
import { ModelSettings } from './model-settings.ts';
import { ShadowBook } from './shadow-book.ts';
import { ShadowRunner, type ShadowCandidate, type ShadowRuntime } from './shadow-runner.ts';
import type { KeyValueStorage } from './stored-value.ts';

/** The release controls the app wires into the runtime: per-model settings and shadow evaluation. */
export interface ReleaseControls {
  settings: ModelSettings;
  shadow: ShadowBook;
  runner: ShadowRunner;
  decisions: ReleaseDecisions;
  /** This device's staged-rollout bucket for a model (release/rollout.ts). */
  bucketFor(modelId: string): Promise<number>;
}

export function releaseControls(deps: {
  /** The runtime, once created (it takes `settings` and the runner's `observe`). */
  runtime: () => ShadowRuntime;
  registry: Promise<ModelRegistry>;
  candidate(modelId: string): Promise<ShadowCandidate | undefined>;
  storage: KeyValueStorage | undefined;
  hidden(): boolean;
}): ReleaseControls {
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
  const settings = new ModelSettings(deps.storage);
  // Loaded once the store is open, not with the first screen (the initial JavaScript budget,
  // e2e/serving.spec.ts): nothing can be followed before.
  void deps.registry.then(async (registry) => (await loadChunk(() => import('./follow-store.ts'))).followStore(registry, { settings, shadow, runner, decisions }));
  let seed: string | undefined;
  // Asked by automatic updates and the Models screen, both loaded after the first screen.
  const bucketFor = async (modelId: string) => {
    const { deviceSeed, rolloutBucket } = await loadChunk(() => import('./rollout.ts'));
    return rolloutBucket(seed ??= deviceSeed(deps.storage), modelId);
  };
  return { settings, shadow, runner, decisions, bucketFor };
}
