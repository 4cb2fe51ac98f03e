import { describe, expect, it } from 'vitest';
import type { Prediction } from '../postprocess.ts';
import { cacheKey, ResultCache } from './result-cache.ts';

const answer = (label: string): Prediction[] => [{ label, score: 0.9, index: 0 }];
const ids = Uint32Array.from([101, 2023, 2003, 102]);

describe('cache keys', () => {
  it('are stable for the same version and preprocessed input', async () => {
    expect(await cacheKey('spam-filter@1.0.0', 5, ids)).toBe(await cacheKey('spam-filter@1.0.0', 5, Uint32Array.from(ids)));
  });

  it('include the model version: a new version never answers from an old one\'s results', async () => {
    expect(await cacheKey('spam-filter@1.0.0', 5, ids)).not.toBe(await cacheKey('spam-filter@1.1.0', 5, ids));
  });

  it('differ for a different input, top-k or tensor type', async () => {
    const base = await cacheKey('m@1.0.0', 5, ids);
    expect(await cacheKey('m@1.0.0', 5, Uint32Array.from([101, 2023, 2004, 102]))).not.toBe(base);
    expect(await cacheKey('m@1.0.0', 3, ids)).not.toBe(base);
    expect(await cacheKey('m@1.0.0', 5, new Float32Array(ids.buffer))).not.toBe(base);
  });

  it('hash only the view of a tensor, not the rest of its buffer', async () => {
    const buffer = new Float32Array([9, 1, 2, 3, 9]);
    expect(await cacheKey('m@1.0.0', 5, buffer.subarray(1, 4))).toBe(await cacheKey('m@1.0.0', 5, Float32Array.from([1, 2, 3])));
  });

  it('never contain the input', async () => {
    expect(await cacheKey('m@1.0.0', 5, ids)).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('ResultCache', () => {
  it('returns what was stored and misses otherwise', () => {
    const cache = new ResultCache();
    cache.set('a', 'm@1', answer('spam'));
    expect(cache.get('a')).toEqual(answer('spam'));
    expect(cache.get('b')).toBeUndefined();
  });

  it('is bounded, evicting the least recently used entry', () => {
    const cache = new ResultCache(2);
    cache.set('a', 'm@1', answer('a'));
    cache.set('b', 'm@1', answer('b'));
    cache.get('a');
    cache.set('c', 'm@1', answer('c'));
    expect(cache.size).toBe(2);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toEqual(answer('a'));
    expect(cache.get('c')).toEqual(answer('c'));
  });

  it('replacing a key does not count twice', () => {
    const cache = new ResultCache(2);
    cache.set('a', 'm@1', answer('a'));
    cache.set('a', 'm@1', answer('a2'));
    cache.set('b', 'm@1', answer('b'));
    expect(cache.get('a')).toEqual(answer('a2'));
    expect(cache.size).toBe(2);
  });

  it('drops one version\'s entries and keeps the others', () => {
    const cache = new ResultCache();
    cache.set('a', 'm@1', answer('a'));
    cache.set('b', 'm@2', answer('b'));
    cache.dropVersion('m@1');
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')).toEqual(answer('b'));
    cache.dropVersion('m@1');
    cache.dropVersion('m@2');
    expect(cache.size).toBe(0);
  });
});
