import { describe, expect, it } from 'vitest';
import type { Release } from '../store/catalog.ts';
import { byRollout, deviceSeed, inRollout, rolloutBucket } from './rollout.ts';
import { memoryStorage } from './memory-storage.test-helpers.ts';

const release = (id: string, rollout?: number): Release => ({
  id, version: '2.0.0', sequence: 2, manifest: 'm.json', signature: 's.json', size: 1, manifestUrl: 'https://x/m.json', signatureUrl: 'https://x/s.json',
  ...(rollout !== undefined ? { rollout } : {}),
});

describe('device seed and bucket', () => {
  it('draws the seed once and keeps it', () => {
    const storage = memoryStorage();
    const seed = deviceSeed(storage);
    expect(seed).toMatch(/^[0-9a-f]{32}$/);
    expect(deviceSeed(storage)).toBe(seed);
    expect(deviceSeed(memoryStorage())).not.toBe(seed);
  });

  it('replaces a damaged seed, and works without storage', () => {
    const storage = memoryStorage();
    storage.setItem('lantern.rolloutSeed', 'not hex');
    expect(deviceSeed(storage)).toMatch(/^[0-9a-f]{32}$/);
    expect(deviceSeed(undefined)).toMatch(/^[0-9a-f]{32}$/);
  });

  it('gives a stable bucket in [0, 1) per device and model', async () => {
    const bucket = await rolloutBucket('00'.repeat(16), 'spam-filter');
    expect(bucket).toBeGreaterThanOrEqual(0);
    expect(bucket).toBeLessThan(1);
    expect(await rolloutBucket('00'.repeat(16), 'spam-filter')).toBe(bucket);
    expect(await rolloutBucket('00'.repeat(16), 'fashion-mnist')).not.toBe(bucket);
  });

  it('spreads devices evenly: about a tenth of 2,000 seeds fall under 0.1', async () => {
    const buckets = await Promise.all(Array.from({ length: 2000 }, (_, i) => rolloutBucket(i.toString(16).padStart(32, '0'), 'm')));
    const under = buckets.filter((b) => b < 0.1).length;
    expect(under).toBeGreaterThan(150);
    expect(under).toBeLessThan(250);
  });
});

describe('fraction boundaries', () => {
  it('0 reaches no device, 1 every device', () => {
    for (const bucket of [0, 0.5, 0.999999]) {
      expect(inRollout(bucket, 0)).toBe(false);
      expect(inRollout(bucket, 1)).toBe(true);
    }
  });

  it('a bucket exactly at the fraction is outside; just below is inside', () => {
    expect(inRollout(0.25, 0.25)).toBe(false);
    expect(inRollout(0.2499, 0.25)).toBe(true);
  });

  it('a larger fraction keeps every device the smaller one reached', async () => {
    const buckets = await Promise.all(Array.from({ length: 200 }, (_, i) => rolloutBucket(i.toString(16).padStart(32, '0'), 'm')));
    for (const b of buckets) if (inRollout(b, 0.1)) expect(inRollout(b, 0.3)).toBe(true);
  });
});

describe('byRollout', () => {
  it("splits updates into now and not yet by each model's bucket", async () => {
    const buckets: Record<string, number> = { a: 0.05, b: 0.5, c: 0.99 };
    const { now, notYet } = await byRollout([release('a', 0.1), release('b', 0.1), release('c', 1), release('d')], (id) => Promise.resolve(buckets[id] ?? 0));
    expect(now.map((r) => r.id)).toEqual(['a', 'c']);
    // Without a fraction a release is not staged: the user installs it.
    expect(notYet.map((r) => r.id)).toEqual(['b']);
  });
});
