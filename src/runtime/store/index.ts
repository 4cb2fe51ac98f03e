/**
 * `lantern/store`: administering the signed model store (install, update, roll back, sideload,
 * catalogs) for apps that show it to their users, as the PWA's Models screen does. Classifying
 * needs only the main entry.
 */
import '../zod-setup.ts';

export { openRegistry, type OpenedRegistry } from './bootstrap.ts';
export { gateHasNoVerdict } from './gate-verdict.ts';
export { ModelRegistry, type CandidateValidator, type GoldenOutcome, type ModelOverview, type RegistryChange, type RegistryNotice, type StorageState, type Transfer } from './registry.ts';
export { StoreModelSource } from './store-model-source.ts';
export { latestReleases, type Release } from './catalog.ts';
export { SavedCatalogs, catalogAddress, releasesFrom } from './catalog-sources.ts';
export type { VersionRecord } from './model-store.ts';
export { autoRollback } from '../auto-rollback.ts';
export { GOLDEN_ITEM_TIMEOUT_MS, goldenValidator } from '../golden-gate.ts';
