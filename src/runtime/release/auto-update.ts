import { LanternError, NetworkError } from '../errors.ts';
import type { OpenedRegistry } from '../store/bootstrap.ts';
import type { Release } from '../store/catalog.ts';
import { releasesFrom } from '../store/catalog-sources.ts';
import { versionKey } from '../store/manifest.ts';
import type { ModelOverview, ModelRegistry } from '../store/registry.ts';
import { byRollout } from './rollout.ts';

/**
 * Automatic updates (the fleet path): every installed model whose catalogs list a newer, staged
 * release (one with a rollout fraction) that this device is in the rollout of is updated to the
 * newest such release — activated, or put in shadow when its signed manifest says so. The newest
 * release, when outside the rollout, is returned for the Models screen to mention (the user may
 * still install it). Never a first install, never without `mayDownload`,
 * never a release this device already refused.
 */
export async function updatesFor(registry: ModelRegistry, releases: readonly Release[], bucketFor: (modelId: string) => Promise<number>): Promise<{ now: Release[]; notYet: Release[] }> {
  const models = new Map((await registry.overview()).map((m) => [m.id, m]));
  // Every listed update, not only the newest per model: byRollout picks the one that reaches this device.
  const updates = releases.filter((release) => {
    const model = models.get(release.id);
    return model?.pointer !== undefined && isUpdate(release, model);
  });
  return byRollout(updates, bucketFor);
}

/**
 * Whether `release` is an update for its model, for the fleet path and the Models screen alike:
 * newer than anything activated, not the candidate already in shadow (Promote / Reject decide
 * that one), and not a release this device refused (its golden set failed, its files did not
 * match): offering it again would download it, on a metered link perhaps, only to refuse it.
 */
export function isUpdate(release: Release, model: Pick<ModelOverview, 'pointer' | 'highestSequence' | 'versions'>): boolean {
  const key = versionKey(release);
  const refused = model.versions.some((v) => v.key === key && v.status === 'rejected');
  return release.sequence > (model.highestSequence ?? -1) && model.pointer?.shadow !== key && !refused;
}

export async function installRolledOut(registry: ModelRegistry, releases: readonly Release[], bucketFor: (modelId: string) => Promise<number>, mayDownload: () => boolean): Promise<LanternError[]> {
  const errors: LanternError[] = [];
  for (const release of (await updatesFor(registry, releases, bucketFor)).now) {
    if (!mayDownload()) break;
    await registry.install(release).catch((error: unknown) => {
      errors.push(error instanceof LanternError ? error : new NetworkError(`${release.id} could not be updated.`));
    });
  }
  return errors;
}

/**
 * How old a trust store may be and still count as just checked: the one the start fetched, for the
 * check that runs right after it. Any later check (the schedule's are hours apart) fetches it again.
 */
const TRUST_FRESH_MS = 60_000;

/**
 * At start-up and while the app stays open (release/update-schedule.ts): fetch the trust store
 * again (unless the start fetched it a moment ago), read the deployment's and the saved
 * catalogs, and install what this device is in the rollout of. The trust store comes first, as on
 * the Models screen: an app left open for days in the field would otherwise install, with the
 * keys it started with, a release signed by a key revoked since. A trust store refused (older,
 * broken) or out of reach leaves the one in use standing; a refusal is returned with the install
 * errors.
 */
export async function autoUpdate(opened: Pick<OpenedRegistry, 'registry' | 'refreshTrust'>, savedCatalogs: readonly string[], bucketFor: (modelId: string) => Promise<number>, mayDownload: () => boolean): Promise<LanternError[]> {
  if (!mayDownload()) return [];
  const { registry } = opened;
  const refused = await opened.refreshTrust({ unlessFetchedWithinMs: TRUST_FRESH_MS }).then(() => [], (error: unknown) => (error instanceof LanternError ? [error] : []));
  const releases = await releasesFrom((url) => registry.catalog(url), savedCatalogs);
  return [...refused, ...await installRolledOut(registry, releases, bucketFor, mayDownload)];
}
