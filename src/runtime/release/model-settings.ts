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
  /** The fallback this device cleared because it stopped qualifying, until the user chooses again or dismisses it. */
  fallbackCleared?: ClearedFallback;
}

/** labels: it no longer speaks the model's labels (either was updated or rolled back); removed: it is no longer installed. */
export interface ClearedFallback {
  id: string;
  reason: 'labels' | 'removed';
}

const SettingsSchema = z.record(z.string(), z.object({
  fallback: z.optional(z.string()),
  cache: z.optional(z.boolean()),
  fallbackCleared: z.optional(z.object({ id: z.string(), reason: z.enum(['labels', 'removed']) })),
}));

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
    // A fallback chosen (or none) answers the note of one cleared.
    if ('fallback' in patch) delete next.fallbackCleared;
    if (!next.fallback) delete next.fallback;
    if (!next.cache) delete next.cache;
    if (!next.fallbackCleared) delete next.fallbackCleared;
    this.stored.set({ ...this.stored.value, [id]: next });
  }

  /** Keeps only the settings of models still on this device (`installed`): a removed model's choices go with it. */
  retain(installed: ReadonlySet<string>): void {
    const kept = Object.entries(this.stored.value).filter(([id]) => installed.has(id));
    if (kept.length !== Object.keys(this.stored.value).length) this.stored.set(Object.fromEntries(kept));
  }

  /** Clears a fallback that stopped qualifying (release/follow-store.ts), noting which and why for the Models screen. */
  clearFallback(id: string, reason: ClearedFallback['reason']): void {
    const { fallback, ...rest } = this.get(id);
    if (fallback) this.stored.set({ ...this.stored.value, [id]: { ...rest, fallbackCleared: { id: fallback, reason } } });
  }

  subscribe(listener: () => void): () => void {
    return this.stored.subscribe(listener);
  }
}
