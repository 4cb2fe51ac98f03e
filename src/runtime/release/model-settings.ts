import { z } from 'zod/mini';
import { StoredValue, type KeyValueStorage } from './stored-value.ts';

/**
 * Per-model release settings chosen on this device: which installed model answers when a model
 * cannot (its fallback), and whether repeated inputs may be answered from the in-memory result
 * cache. Only these choices are stored (localStorage), never an input or a result.
 */
export interface ModelReleaseSettings {
  /** Id of another installed model with the same labels. */
  fallback?: string;
  /** Opt-in: answer repeated inputs from memory. */
  cache?: boolean;
}

const SettingsSchema = z.record(z.string(), z.object({ fallback: z.optional(z.string()), cache: z.optional(z.boolean()) }));

export class ModelSettings {
  private readonly stored: StoredValue<Record<string, ModelReleaseSettings>>;

  constructor(storage: KeyValueStorage | undefined) {
    this.stored = new StoredValue(storage, 'lantern.modelSettings', SettingsSchema, {});
  }

  get(id: string): ModelReleaseSettings {
    return this.stored.value[id] ?? {};
  }

  fallbackFor(id: string): string | undefined {
    const fallback = this.get(id).fallback;
    // A model never falls back to itself (a loop would only fail twice).
    return fallback !== id ? fallback : undefined;
  }

  cacheEnabled(id: string): boolean {
    return this.get(id).cache === true;
  }

  set(id: string, patch: ModelReleaseSettings): void {
    const next: ModelReleaseSettings = { ...this.get(id), ...patch };
    if (!next.fallback) delete next.fallback;
    if (!next.cache) delete next.cache;
    this.stored.set({ ...this.stored.value, [id]: next });
  }

  /**
   * Keeps only the settings of models still on this device (`installed`), and no fallback to a
   * model that is gone: a removed model's choices go with it, and a fallback that can no longer
   * answer would still take half of its primary's deadline (release/fallback.ts).
   */
  retain(installed: ReadonlySet<string>): void {
    const next: Record<string, ModelReleaseSettings> = {};
    let changed = false;
    for (const [id, settings] of Object.entries(this.stored.value)) {
      if (!installed.has(id)) {
        changed = true;
        continue;
      }
      const { fallback, ...rest } = settings;
      const keep = fallback !== undefined && installed.has(fallback);
      if (fallback !== undefined && !keep) changed = true;
      next[id] = keep ? settings : rest;
    }
    if (changed) this.stored.set(next);
  }

  subscribe(listener: () => void): () => void {
    return this.stored.subscribe(listener);
  }
}
