import { z } from 'zod';

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

export interface KeyValueStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

const KEY = 'lantern.modelSettings';
const SettingsSchema = z.record(z.string(), z.object({ fallback: z.string().optional(), cache: z.boolean().optional() }));

export class ModelSettings {
  private readonly listeners = new Set<() => void>();
  private settings: Record<string, ModelReleaseSettings>;

  constructor(private readonly storage: KeyValueStorage | undefined) {
    this.settings = read(storage);
  }

  get(id: string): ModelReleaseSettings {
    return this.settings[id] ?? {};
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
    this.settings = { ...this.settings, [id]: next };
    try {
      this.storage?.setItem(KEY, JSON.stringify(this.settings));
    } catch {
      // Private mode or a full quota: the choice still holds for this session.
    }
    for (const listener of this.listeners) listener();
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

function read(storage: KeyValueStorage | undefined): Record<string, ModelReleaseSettings> {
  try {
    const parsed = SettingsSchema.safeParse(JSON.parse(storage?.getItem(KEY) ?? '{}'));
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}
