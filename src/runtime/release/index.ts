/**
 * `lantern/release`: the release controls production teams use on a fleet of devices — shadow
 * evaluation, the staged rollout's device bucket, fallback models and the opt-in result cache —
 * for apps that show them to their users, as the PWA's Models and Metrics screens do. Automatic
 * updates, which follow the staged rollouts, are `lantern/updates`.
 */
export { releaseControls, type ReleaseControls } from './controls.ts';
export type { ShadowEvaluation } from './evaluation.ts';
export { agreement, latencyRatio, type ShadowFigures } from './shadow.ts';
export type { ReleaseDecision } from './decisions.ts';
export { sameLabels } from './fallback.ts';
export type { ModelSettings } from './model-settings.ts';
