/**
 * `lantern/release`: the release controls production teams use on a fleet of devices — shadow
 * evaluation, staged rollout, fallback models and the opt-in result cache — for apps that show
 * them to their users, as the PWA's Models and Metrics screens do.
 */
export { releaseControls, type ReleaseControls } from './controls.ts';
export { autoUpdate, isUpdate, updatesFor } from './auto-update.ts';
export { keepUpdating, UPDATE_EVERY_MS } from './update-schedule.ts';
export { agreement, latencyRatio, type ShadowFigures } from './shadow.ts';
export type { ReleaseDecision } from './decisions.ts';
export { sameLabels } from './fallback.ts';
export type { ModelSettings } from './model-settings.ts';
