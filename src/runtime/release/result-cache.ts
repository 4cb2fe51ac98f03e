import type { Prediction } from '../postprocess.ts';
import { concatBytes, sha256Hex } from '../store/bytes.ts';

/**
 * The opt-in result cache for repeated inputs. It lives in the inference worker's memory only
 * (never persisted: inputs may be sensitive, and a hash of a short text can be guessed) and is
 * keyed by a SHA-256 of the model version and the *preprocessed* input, so two inputs the model
 * cannot tell apart (same tokens, same pixels after resizing) share an entry, while a new version
 * never answers from an old version's results. Least recently used entries go first.
 */
const DEFAULT_MAX_ENTRIES = 512;

/** The cache key of one preprocessed input (token ids or an image tensor) for one version and top-k. */
export async function cacheKey(versionKey: string, k: number, input: Uint32Array | Float32Array): Promise<string> {
  const head = new TextEncoder().encode(`${input instanceof Float32Array ? 'f32' : 'u32'}\u0000${k}\u0000${versionKey}\u0000`);
  return sha256Hex(concatBytes([head, new Uint8Array(input.buffer, input.byteOffset, input.byteLength)]));
}

interface Entry {
  version: string;
  predictions: Prediction[];
}

export class ResultCache {
  /** Map iteration order is insertion order: re-inserting on a hit makes it an LRU. */
  private readonly entries = new Map<string, Entry>();
  private readonly perVersion = new Map<string, number>();

  constructor(private readonly maxEntries = DEFAULT_MAX_ENTRIES) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: string): Prediction[] | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.predictions;
  }

  set(key: string, version: string, predictions: Prediction[]): void {
    if (this.entries.has(key)) this.remove(key);
    this.entries.set(key, { version, predictions });
    this.perVersion.set(version, (this.perVersion.get(version) ?? 0) + 1);
    while (this.entries.size > this.maxEntries) this.remove(this.entries.keys().next().value!);
  }

  /** Forgets a version's results (the model's cache was turned off, or the version was unloaded). */
  dropVersion(version: string): void {
    if (!this.perVersion.has(version)) return;
    for (const [key, entry] of this.entries) if (entry.version === version) this.remove(key);
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    const left = (this.perVersion.get(entry.version) ?? 1) - 1;
    if (left > 0) this.perVersion.set(entry.version, left);
    else this.perVersion.delete(entry.version);
  }
}
