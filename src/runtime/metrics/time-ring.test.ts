import { describe, expect, it } from 'vitest';
import { TimeRing } from './time-ring.ts';

describe('TimeRing', () => {
  it('groups values by slot and keeps at most maxSlots slots', () => {
    const ring = new TimeRing(1000, 3, () => ({ n: 0 }));
    for (const t of [0, 500, 999, 1000, 2500, 3100, 4200]) ring.at(t).n++;
    expect(ring.all().map((s) => [s.start, s.value.n])).toEqual([[2000, 1], [3000, 1], [4000, 1]]);
  });

  it('within() returns the slots overlapping the span; expire() drops old ones', () => {
    const ring = new TimeRing(1000, 10, () => ({ n: 0 }));
    for (const t of [0, 1500, 5200]) ring.at(t).n++;
    expect(ring.within(5500, 2000).map((s) => s.start)).toEqual([5000]);
    expect(ring.within(5500, 4000).map((s) => s.start)).toEqual([1000, 5000]);
    ring.expire(14_000);
    expect(ring.all().map((s) => s.start)).toEqual([5000]);
    ring.expire(30_000);
    expect(ring.all()).toEqual([]);
  });

  it('a clock going backwards writes into the newest slot instead of reordering', () => {
    const ring = new TimeRing(1000, 5, () => ({ n: 0 }));
    ring.at(3000).n++;
    ring.at(1000).n++;
    expect(ring.all().map((s) => [s.start, s.value.n])).toEqual([[3000, 2]]);
  });

  it('round-trips, and ignores a save made with another slot width', () => {
    const ring = new TimeRing(1000, 5, () => ({ n: 0 }));
    ring.at(1000).n = 4;
    const json = ring.toJSON((v) => v.n);
    expect(new TimeRing(1000, 5, () => ({ n: 0 })).load(json, (n) => ({ n })).all()).toEqual(ring.all());
    expect(new TimeRing(2000, 5, () => ({ n: 0 })).load(json, (n) => ({ n })).all()).toEqual([]);
  });
});
