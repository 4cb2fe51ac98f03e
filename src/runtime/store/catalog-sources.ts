import { ValidationError } from '../errors.ts';
import type { Release } from './catalog.ts';

/**
 * Catalogs the user added ("Add a model" → catalog URL), remembered so that update checks cover
 * them too. Only the address is kept; whether its origin may be fetched is decided by the
 * registry's OriginPolicy on every request, never by this list.
 */
export interface KeyValueStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

const KEY = 'lantern.catalogs';
const MAX = 20;

export class SavedCatalogs {
  constructor(private readonly storage: KeyValueStorage | undefined) {}

  list(): string[] {
    try {
      const value: unknown = JSON.parse(this.storage?.getItem(KEY) ?? '[]');
      return Array.isArray(value) ? value.filter((u): u is string => typeof u === 'string') : [];
    } catch {
      return [];
    }
  }

  add(url: string): void {
    const next = [url, ...this.list().filter((u) => u !== url)].slice(0, MAX);
    this.storage?.setItem(KEY, JSON.stringify(next));
  }
}

/** An absolute http(s) catalog address from what the user typed (relative to the app is fine). */
export function catalogAddress(input: string, base: string): string {
  let url: URL;
  try {
    url = new URL(input.trim(), base);
  } catch {
    throw new ValidationError('That is not a valid catalog address.');
  }
  if (!input.trim() || (url.protocol !== 'https:' && url.protocol !== 'http:')) throw new ValidationError('A catalog address must start with https:// (or http://).');
  return url.href;
}

/**
 * Releases from the deployment's catalog plus the saved ones. A catalog that cannot be read does
 * not hide the others; only when every one fails is the first error raised.
 */
export async function releasesFrom(catalog: (url?: string) => Promise<Release[]>, saved: readonly string[]): Promise<Release[]> {
  const results = await Promise.allSettled([catalog(), ...saved.map((url) => catalog(url))]);
  const ok = results.filter((r): r is PromiseFulfilledResult<Release[]> => r.status === 'fulfilled');
  if (ok.length === 0) throw (results[0] as PromiseRejectedResult).reason;
  return ok.flatMap((r) => r.value);
}
