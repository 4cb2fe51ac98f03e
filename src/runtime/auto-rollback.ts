import type { RequestRecord } from './lantern.ts';
import type { ModelSource } from './model-source.ts';
import type { ModelRegistry } from './store/registry.ts';
import { countsAgainstVersion, VersionHealth } from './version-health.ts';

/** What autoRollback gives Lantern: its `onRecord` and its `onStuck`. */
export interface VersionWatch {
  /** Every request's record (Lantern's onRecord). */
  record(record: RequestRecord): void;
  /** A run of `versionKey` that hung a worker (Lantern's onStuck): counted as a failed request of it. */
  stuck(versionKey: string): void;
}

/**
 * Post-activation safety net: feeds every request record, and every run that hung a worker, to a
 * VersionHealth and, when the active version of a model trips it, rolls that model back to its
 * previous version (recorded in the store and as a registry notice).
 */
export function autoRollback(deps: {
  registry: Promise<ModelRegistry>;
  source: Pick<ModelSource, 'describe'>;
  health?: VersionHealth;
}): VersionWatch {
  const health = deps.health ?? new VersionHealth();
  const observe = async (key: string, ok: boolean): Promise<void> => {
    const reason = health.observe(key, ok);
    // The registry tells its subscribers (Lantern's source among them) when it did roll back.
    if (reason) await (await deps.registry).rollBackAutomatically(key, reason);
  };
  return {
    record: (record) => {
      if (!record.ok && !countsAgainstVersion(record.errorCode)) return;
      // A failed request does not say which version failed: it is the one active now.
      void (async () => {
        const version = record.ok ? record.version : (await deps.source.describe(record.modelId).catch(() => undefined))?.version;
        if (version) await observe(`${record.modelId}@${version}`, record.ok);
      })().catch(() => undefined);
    },
    stuck: (versionKey) => void observe(versionKey, false).catch(() => undefined),
  };
}
