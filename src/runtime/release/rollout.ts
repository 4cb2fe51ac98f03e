import { sha256Hex } from '../store/bytes.ts';
import type { Release } from '../store/catalog.ts';
import type { KeyValueStorage } from './stored-value.ts';

/**
 * Staged rollout. Each device draws a random seed once (kept in localStorage, never sent
 * anywhere); its bucket for a model is a number in [0, 1) derived from that seed and the model
 * id, so it is stable across releases and reloads, differs between models (the same devices are
 * not always the canaries), and a catalog that raises a release's fraction keeps every device
 * already in it and adds more. A release reaches a device automatically when bucket < fraction.
 * A catalog entry without a fraction is not rolled out automatically at all: the user updates
 * from the Models screen, as before staged rollouts existed.
 */
const SEED_KEY = 'lantern.rolloutSeed';

/** The device's seed, drawn on first use; a device whose storage refuses writes draws once per session. */
export function deviceSeed(storage: KeyValueStorage | undefined): string {
  let seed: string | null = null;
  try {
    seed = storage?.getItem(SEED_KEY) ?? null;
  } catch {
    // Unreadable storage: a session seed below.
  }
  if (seed && /^[0-9a-f]{32}$/.test(seed)) return seed;
  const fresh = Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
  try {
    storage?.setItem(SEED_KEY, fresh);
  } catch {
    // Kept for this session only.
  }
  return fresh;
}

/** The device's bucket in [0, 1) for one model. */
export async function rolloutBucket(seed: string, modelId: string): Promise<number> {
  const hex = await sha256Hex(new TextEncoder().encode(`${seed}\u0000${modelId}`));
  return Number.parseInt(hex.slice(0, 8), 16) / 2 ** 32;
}

/** Whether a release with this fraction reaches a device in this bucket: 0 reaches none, 1 all. */
export function inRollout(bucket: number, fraction: number): boolean {
  return bucket < fraction;
}

/**
 * Per model, the newest staged update this device is in the rollout of (installed automatically)
 * and, when the newest update of all is staged but does not reach this device yet, that one (for
 * the Models screen to mention). Updates without a fraction are in neither (they wait for the
 * user). A canary of a newer release must not hold back an older one published to more devices:
 * a catalog listing 1.1.0 at 100% and 1.2.0 at 10% brings 1.1.0 to the other 90%.
 */
export async function byRollout(updates: readonly Release[], bucketFor: (modelId: string) => Promise<number>): Promise<{ now: Release[]; notYet: Release[] }> {
  const byModel = new Map<string, Release[]>();
  for (const release of updates) byModel.set(release.id, [...(byModel.get(release.id) ?? []), release]);
  const now: Release[] = [];
  const notYet: Release[] = [];
  for (const [id, releases] of byModel) {
    const newestFirst = [...releases].sort((a, b) => b.sequence - a.sequence);
    const bucket = await bucketFor(id);
    const reached = newestFirst.find((r) => r.rollout !== undefined && inRollout(bucket, r.rollout));
    if (reached) now.push(reached);
    const newest = newestFirst[0]!;
    if (newest !== reached && newest.rollout !== undefined && !inRollout(bucket, newest.rollout)) notYet.push(newest);
  }
  return { now, notYet };
}
