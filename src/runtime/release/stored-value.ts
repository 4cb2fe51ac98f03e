import type { z } from 'zod/mini';

/** The part of localStorage the release settings use (a Map-backed fake in tests). */
export interface KeyValueStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

/**
 * One JSON value kept in localStorage under `key`, validated with `schema` when read (damaged or
 * foreign data reads as `fallback`), with change notifications. A refused write (private mode,
 * full quota) keeps the value for this session.
 */
export class StoredValue<T> {
  private readonly listeners = new Set<() => void>();
  private current: T;

  constructor(private readonly storage: KeyValueStorage | undefined, private readonly key: string, schema: z.ZodMiniType<T>, fallback: T) {
    this.current = read(storage, key, schema) ?? fallback;
  }

  get value(): T {
    return this.current;
  }

  set(next: T): void {
    this.current = next;
    try {
      this.storage?.setItem(this.key, JSON.stringify(next));
    } catch {
      // Kept in memory for this session.
    }
    for (const listener of this.listeners) listener();
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

function read<T>(storage: KeyValueStorage | undefined, key: string, schema: z.ZodMiniType<T>): T | undefined {
  try {
    const text = storage?.getItem(key);
    if (text == null) return undefined;
    const parsed = schema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
