import { z } from 'zod/mini';
import { mayAnswerFor } from './fallback.ts';
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

  /**
   * Keeps only the settings of models still on this device (`installed`), and only fallbacks that
   * can still answer: a removed model's choices go with it, and a fallback that is gone or speaks
   * other labels than its primary (`labels`: each active version's) would be refused on every
   * failure (release/fallback.ts, mayAnswerFor) while still taking half of its primary's
   * deadline. A fallback cleared is noted, so that the Models screen can say why the choice went.
   * A model without an active version (quarantined with nothing to hand over to) keeps its
   * choice: that is when its fallback answers, in the labels it answered in last.
   */
  retain(installed: ReadonlySet<string>, labels: ReadonlyMap<string, readonly string[]>): void {
    const next: Record<string, ModelReleaseSettings> = {};
    let changed = false;
    for (const [id, settings] of Object.entries(this.stored.value)) {
      if (!installed.has(id)) {
        changed = true;
        continue;
      }
      const { fallback, ...rest } = settings;
      const reason = fallback === undefined ? undefined : disqualified(labels.get(id), fallback, installed, labels);
      if (fallback === undefined || !reason) {
        next[id] = settings;
        continue;
      }
      next[id] = { ...rest, fallbackCleared: { id: fallback, reason } };
      changed = true;
    }
    if (changed) this.stored.set(next);
  }

  subscribe(listener: () => void): () => void {
    return this.stored.subscribe(listener);
  }
}

/** Why `fallback` can no longer answer for a model speaking `primary`, or undefined while it can (or cannot be told). */
function disqualified(primary: readonly string[] | undefined, fallback: string, installed: ReadonlySet<string>, labels: ReadonlyMap<string, readonly string[]>): ClearedFallback['reason'] | undefined {
  if (!installed.has(fallback)) return 'removed';
  const theirs = labels.get(fallback);
  return primary && theirs && !mayAnswerFor(primary, theirs) ? 'labels' : undefined;
}
