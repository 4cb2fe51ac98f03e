import { loadChunk } from '../field/lazy-chunk.ts';
import type { ClassificationResult, LanternInput } from '../lantern.ts';
import type { ReleaseControlsDeps, ShadowEvaluation } from './evaluation.ts';
import { ModelSettings } from './model-settings.ts';

/** The release controls the app wires into the runtime: per-model settings and shadow evaluation. */
export interface ReleaseControls {
  settings: ModelSettings;
  /**
   * Shadow evaluation, once its code has loaded: after the first screen's (the initial JavaScript
   * budget, e2e/serving.spec.ts), or once back online if it could not (loadChunk).
   */
  evaluation: Promise<ShadowEvaluation>;
  /**
   * Lantern's `onAnswer`: hands an answer of an active version to shadow evaluation. Answers
   * given before its code has loaded (the first moments after a start) are not compared: no
   * input is held waiting for it, and the figures only count fewer runs.
   */
  observe(modelId: string, input: LanternInput, active: ClassificationResult): void;
  /** This device's staged-rollout bucket for a model (release/rollout.ts). */
  bucketFor(modelId: string): Promise<number>;
}

export function releaseControls(deps: ReleaseControlsDeps): ReleaseControls {
  const settings = new ModelSettings(deps.storage);
  let started: ShadowEvaluation | undefined;
  const evaluation = loadChunk(() => import('./evaluation.ts')).then(({ startEvaluation }) => (started = startEvaluation(deps, settings)));
  let seed: string | undefined;
  // Asked by automatic updates and the Models screen, both loaded after the first screen.
  const bucketFor = async (modelId: string) => {
    const { deviceSeed, rolloutBucket } = await loadChunk(() => import('./rollout.ts'));
    return rolloutBucket(seed ??= deviceSeed(deps.storage), modelId);
  };
  return { settings, evaluation, observe: (modelId, input, active) => started?.runner.observe(modelId, input, active), bucketFor };
}
