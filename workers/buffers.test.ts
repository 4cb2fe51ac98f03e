import { describe, expect, it } from 'vitest';
import { ArrayPool, ScratchBuffer } from './buffers.ts';

describe('ScratchBuffer', () => {
  it('hands out one buffer, grown when a longer one is asked for', () => {
    const scratch = new ScratchBuffer();
    const a = scratch.take(100);
    const b = scratch.take(50);
    expect([a.length, b.length]).toEqual([100, 50]);
    expect(b.buffer).toBe(a.buffer);
    expect(scratch.take(200).buffer).not.toBe(a.buffer);
  });
});

describe('ArrayPool', () => {
  it('gives an array back out only once it is returned, and only for its exact length', () => {
    const pool = new ArrayPool(Float32Array);
    const first = pool.take(12);
    expect(pool.take(12)).not.toBe(first);
    pool.give([first]);
    expect(pool.take(8)).not.toBe(first);
    expect(pool.take(12)).toBe(first);
    expect(pool.take(12)).not.toBe(first);
  });

  it('keeps a bounded number of spares and never the same array twice', () => {
    const pool = new ArrayPool(Uint8ClampedArray, 2);
    const [a, b, c] = [pool.take(4), pool.take(4), pool.take(4)];
    pool.give([a, a, b, c]);
    const out = [pool.take(4), pool.take(4), pool.take(4)];
    // a (once) and b were kept; the second a and c were beyond the bound.
    expect([a, b]).toContain(out[0]);
    expect([a, b]).toContain(out[1]);
    expect(out[0]).not.toBe(out[1]);
    expect([a, b, c]).not.toContain(out[2]);
  });

  it('never keeps an array it did not make: a caller\'s own pixels are not handed out to be overwritten', () => {
    const pool = new ArrayPool(Uint8ClampedArray);
    const callers = new Uint8ClampedArray(16);
    pool.give([callers]);
    expect(pool.take(16)).not.toBe(callers);
  });
});
