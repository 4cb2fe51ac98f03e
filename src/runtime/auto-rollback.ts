import type { RequestRecord } from './lantern.ts';
import type { ModelSource } from './model-source.ts';
import type { ModelRegistry } from './store/registry.ts';
import { countsAgainstVersion, VersionHealth } from './version-health.ts';

/**
 * Post-activation safety net: feeds every request record to a VersionHealth and, when the
 * active version of a model trips it, rolls that model back to its previous version (recorded in
 * the store and as a registry notice). Returns the `onRecord` callback to give Lantern.
 */
export function autoRollback(deps: {
  registry: Promise<ModelRegistry>;
  source: Pick<ModelSource, 'describe'>;
  health?: VersionHealth;
}): (record: RequestRecord) => void {
  const health = deps.health ?? new VersionHealth();
  const observe = async (record: RequestRecord): Promise<void> => {
    // A failed request does not say which version failed: it is the one active now.
    const version = record.ok ? record.version : (await deps.source.describe(record.modelId).catch(() => undefined))?.version;
    if (!version) return;
    const key = `${record.modelId}@${version}`;
    const reason = health.observe(key, record.ok);
    // The registry tells its subscribers (Lantern's source among them) when it did roll back.
    if (reason) await (await deps.registry).rollBackAutomatically(key, reason);
  };
  return (record) => {
    if (!record.ok && !countsAgainstVersion(record.errorCode)) return;
    void observe(record).catch(() => undefined);
  };
}
