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
  it('gives an array back out only once it is returned', () => {
    const pool = new ArrayPool(Float32Array);
    const first = pool.take(12);
    expect(pool.take(12)).not.toBe(first);
    pool.give([first]);
    expect(pool.take(12)).toBe(first);
    expect(pool.take(12)).not.toBe(first);
  });

  it('serves a shorter request with a view of the smallest spare that holds it, and takes the view back', () => {
    const pool = new ArrayPool(BigInt64Array);
    const [large, small] = [pool.take(100), pool.take(50)];
    pool.give([large, small]);
    const view = pool.take(40);
    expect(view.length).toBe(40);
    expect(view.buffer).toBe(small.buffer);
    expect(pool.take(120).buffer).not.toBe(large.buffer);
    pool.give([view]);
    expect(pool.take(50)).toBe(small);
    expect(pool.take(100)).toBe(large);
  });

  it('keeps a bounded number of spares, the largest, and never the same array twice', () => {
    const pool = new ArrayPool(Uint8ClampedArray, 2);
    const [a, b, c] = [pool.take(4), pool.take(8), pool.take(6)];
    pool.give([a, a, b, c]);
    const out = [pool.take(4), pool.take(4), pool.take(4)];
    // b and c (the largest) were kept, a only once and then dropped for them.
    expect(out.slice(0, 2).map((view) => view.buffer).sort((x, y) => x.byteLength - y.byteLength)).toEqual([c.buffer, b.buffer]);
    expect([a.buffer, b.buffer, c.buffer]).not.toContain(out[2]!.buffer);
  });

  it('never keeps an array it did not make: a caller\'s own pixels are not handed out to be overwritten', () => {
    const pool = new ArrayPool(Uint8ClampedArray);
    const callers = new Uint8ClampedArray(16);
    pool.give([callers]);
    expect(pool.take(16)).not.toBe(callers);
  });
});
