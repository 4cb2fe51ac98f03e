import { describe, expect, it } from 'vitest';
import { mulberry32 as seeded } from '../../../models/spam-filter/recipe/corpus.mjs';
import { Histogram, HistogramJsonSchema, MAX_BUCKETS, MAX_VALUE, MIN_VALUE, RELATIVE_ERROR } from './histogram.ts';

function exactQuantile(sorted: number[], q: number): number {
  return sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1]!;
}

const QS = [0, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 1];
/** Tiny slack for floating-point at exact bucket boundaries. */
const BOUND = RELATIVE_ERROR * (1 + 1e-9);

const distributions: Record<string, (r: () => number) => number> = {
  uniform: (r) => 1 + r() * 999,
  lognormal: (r) => Math.exp(2 + 1.5 * Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r())),
  exponential: (r) => -Math.log(1 - r()) * 30,
  bimodal: (r) => (r() < 0.9 ? 5 + r() : 800 + r() * 200),
  'heavy tail (pareto)': (r) => 1 / (1 - r()) ** 1.5,
};

describe('Histogram percentiles against exact percentiles on random data', () => {
  for (const [name, draw] of Object.entries(distributions)) {
    for (const seed of [1, 2, 3]) {
      it(`${name}, seed ${seed}: every quantile within ${RELATIVE_ERROR * 100}%`, () => {
        const random = seeded(seed);
        const n = 2000 + Math.floor(random() * 8000);
        const values = Array.from({ length: n }, () => draw(random));
        const h = new Histogram();
        for (const v of values) h.record(v);
        const sorted = [...values].sort((a, b) => a - b);
        for (const q of QS) {
          const exact = exactQuantile(sorted, q);
          expect(Math.abs(h.quantile(q) - exact) / exact, `q=${q}`).toBeLessThanOrEqual(BOUND);
        }
        expect(h.count).toBe(n);
        expect(h.min).toBe(sorted[0]);
        expect(h.max).toBe(sorted[n - 1]);
        expect(h.sum).toBeCloseTo(values.reduce((a, b) => a + b, 0), 6);
      });
    }
  }

  it('p0 and p100 are the exact min and max; an empty histogram reports NaN', () => {
    const h = new Histogram();
    expect(h.quantile(0.5)).toBeNaN();
    for (const v of [3.3, 7.77, 12.5]) h.record(v);
    expect(h.quantile(0)).toBe(3.3);
    expect(h.quantile(1)).toBe(12.5);
  });

  it('values at or below MIN_VALUE are zeros (absolute error ≤ MIN_VALUE); huge values are clamped', () => {
    const h = new Histogram();
    h.record(0, 5);
    h.record(MIN_VALUE / 2);
    h.record(MAX_VALUE * 100);
    expect(h.quantile(0.5)).toBe(0);
    expect(h.quantile(1)).toBe(MAX_VALUE * 100);
    expect(h.count).toBe(7);
  });

  it('rejects negative and non-finite values', () => {
    const h = new Histogram();
    expect(() => h.record(-1)).toThrow(RangeError);
    expect(() => h.record(Number.NaN)).toThrow(RangeError);
  });
});

describe('Histogram merge and bounds', () => {
  it('merging equals the histogram of the concatenated data', () => {
    const random = seeded(42);
    const parts = Array.from({ length: 5 }, () => Array.from({ length: 1000 }, () => Math.exp(random() * 10)));
    const merged = new Histogram();
    for (const part of parts) {
      const h = new Histogram();
      for (const v of part) h.record(v);
      merged.merge(h);
    }
    const whole = new Histogram();
    for (const v of parts.flat()) whole.record(v);
    const a = merged.toJSON();
    const b = whole.toJSON();
    expect(a.buckets).toEqual(b.buckets);
    expect([a.count, a.zero, a.min, a.max]).toEqual([b.count, b.zero, b.min, b.max]);
    expect(a.sum).toBeCloseTo(b.sum, 6);
    for (const q of QS) expect(merged.quantile(q)).toBe(whole.quantile(q));
  });

  it('merging an empty histogram changes nothing', () => {
    const h = new Histogram();
    h.record(10);
    h.merge(new Histogram());
    expect(h.toJSON()).toEqual({ count: 1, zero: 0, sum: 10, min: 10, max: 10, buckets: h.toJSON().buckets });
    expect(h.quantile(0.5)).toBe(10);
  });

  it('memory stays bounded whatever is recorded', () => {
    const random = seeded(7);
    const h = new Histogram();
    for (let i = 0; i < 200_000; i++) h.record(random() < 0.01 ? 0 : Math.exp((random() - 0.3) * 60));
    expect(h.bucketCount).toBeLessThanOrEqual(MAX_BUCKETS);
    expect(MAX_BUCKETS).toBeLessThan(1500);
    expect(JSON.stringify(h).length).toBeLessThan(MAX_BUCKETS * 20);
  });

  it('round-trips through JSON, validated by its schema', () => {
    const random = seeded(9);
    const h = new Histogram();
    for (let i = 0; i < 500; i++) h.record(random() * 100);
    const back = Histogram.fromJSON(HistogramJsonSchema.parse(JSON.parse(JSON.stringify(h))));
    expect(back.toJSON()).toEqual(h.toJSON());
    expect(back.percentiles()).toEqual(h.percentiles());
  });

  it('plot buckets cover every count, grouped or not', () => {
    const random = seeded(11);
    const h = new Histogram();
    for (let i = 0; i < 1000; i++) h.record(random() * 100);
    h.record(0);
    for (const group of [1, 10, 35]) {
      const buckets = h.buckets(group);
      expect(buckets.reduce((s, b) => s + b.count, 0)).toBe(1001);
      for (const b of buckets) expect(b.upper).toBeGreaterThan(b.lower);
      for (let i = 1; i < buckets.length; i++) expect(buckets[i]!.lower).toBeGreaterThanOrEqual(buckets[i - 1]!.upper * (1 - 1e-12));
    }
    expect(h.buckets(10).length).toBeLessThan(h.buckets(1).length);
  });
});
