import { LanternError, NetworkError } from '../errors.ts';
import { latestReleases, type Release } from '../store/catalog.ts';
import { releasesFrom } from '../store/catalog-sources.ts';
import { versionKey } from '../store/manifest.ts';
import type { ModelRegistry } from '../store/registry.ts';
import { byRollout } from './rollout.ts';

/**
 * Automatic updates (the fleet path): every installed model whose catalogs list a newer, staged
 * release (one with a rollout fraction) that this device is in the rollout of is updated — activated, or put in shadow when its
 * signed manifest says so. Releases outside the rollout are returned for the Models screen to
 * mention (the user may still install them). Never a first install, never without `mayDownload`,
 * never a release this device already refused.
 */
export async function updatesFor(registry: ModelRegistry, releases: readonly Release[], bucketFor: (modelId: string) => Promise<number>): Promise<{ now: Release[]; notYet: Release[] }> {
  const updates: Release[] = [];
  for (const release of latestReleases(releases).values()) {
    const installed = await registry.store.pointer(release.id);
    const highest = await registry.store.highestSequence(release.id);
    const key = versionKey(release);
    const inShadow = installed?.shadow === key;
    // A release this device refused (its golden set failed, its files did not match) is not
    // downloaded again at every start: on a metered link that would cost its size each time.
    const refused = (await registry.store.version(key))?.status === 'rejected';
    if (installed && release.sequence > (highest ?? -1) && !inShadow && !refused) updates.push(release);
  }
  return byRollout(updates, bucketFor);
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

/** At start-up: read the deployment's and the saved catalogs and install what this device is in the rollout of. */
export async function autoUpdate(registry: ModelRegistry, savedCatalogs: readonly string[], bucketFor: (modelId: string) => Promise<number>, mayDownload: () => boolean): Promise<LanternError[]> {
  if (!mayDownload()) return [];
  const releases = await releasesFrom((url) => registry.catalog(url), savedCatalogs);
  return installRolledOut(registry, releases, bucketFor, mayDownload);
}
