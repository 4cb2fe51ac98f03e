/**
 * `lantern/updates`: automatic (fleet) updates — which catalog releases are updates for this
 * device, installing those it is in the staged rollout of, once (`autoUpdate`) or again while the
 * app stays open (`keepUpdating`). Apart from `lantern/release` so that an app can load it after
 * its first screen: nothing here is needed to answer a request.
 */
export { autoUpdate, isUpdate, updatesFor } from './auto-update.ts';
export { keepUpdating, UPDATE_EVERY_MS } from './update-schedule.ts';
