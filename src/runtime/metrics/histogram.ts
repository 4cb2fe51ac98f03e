import { z } from 'zod/mini';

/**
 * A log-bucketed histogram (the DDSketch mapping): bucket i holds values in (γ^(i-1), γ^i]
 * with γ = (1+α)/(1−α), and reports 2γ^i/(γ+1) for them, which is within α of every value in
 * the bucket. So any percentile is within RELATIVE_ERROR of the exact nearest-rank percentile,
 * whatever the data. Merging adds bucket counts, so a merged histogram is exactly the histogram
 * of the concatenated data. Memory is bounded by the index range: values are clamped to
 * [MIN_VALUE, MAX_VALUE], at most MAX_BUCKETS buckets, ~1400.
 */
export const RELATIVE_ERROR = 0.01;
/** Values at or below this (1 µs when recording milliseconds) count as 0. */
export const MIN_VALUE = 1e-3;
/** Values above this (about 11.5 days in milliseconds) are counted in the top bucket. */
export const MAX_VALUE = 1e9;

const GAMMA = (1 + RELATIVE_ERROR) / (1 - RELATIVE_ERROR);
const LOG_GAMMA = Math.log(GAMMA);
const MIN_INDEX = Math.ceil(Math.log(MIN_VALUE) / LOG_GAMMA);
const MAX_INDEX = Math.ceil(Math.log(MAX_VALUE) / LOG_GAMMA);
export const MAX_BUCKETS = MAX_INDEX - MIN_INDEX + 2;

export const HistogramJsonSchema = z.object({
  count: z.int().check(z.nonnegative()),
  zero: z.int().check(z.nonnegative()),
  sum: z.number(),
  min: z.nullable(z.number()),
  max: z.nullable(z.number()),
  /** [bucket index, count] pairs, ascending. */
  buckets: z.array(z.tuple([z.int(), z.int().check(z.positive())])).check(z.maxLength(MAX_BUCKETS)),
});
export type HistogramJson = z.infer<typeof HistogramJsonSchema>;

export interface Bucket {
  lower: number;
  upper: number;
  count: number;
}

const STANDARD_QUANTILES = [0.5, 0.9, 0.95, 0.99] as const;
export type Percentiles = { p50: number; p90: number; p95: number; p99: number };

function indexOf(value: number): number {
  return Math.min(MAX_INDEX, Math.max(MIN_INDEX, Math.ceil(Math.log(value) / LOG_GAMMA)));
}

function representative(index: number): number {
  return (2 * GAMMA ** index) / (GAMMA + 1);
}

export class Histogram {
  private readonly counts = new Map<number, number>();
  private zero = 0;
  count = 0;
  sum = 0;
  min = Infinity;
  max = -Infinity;

  /** Records `value` `times` times; negative and non-finite values are programming errors. */
  record(value: number, times = 1): void {
    if (!Number.isFinite(value) || value < 0) throw new RangeError(`Histogram values must be finite and ≥ 0, got ${value}.`);
    if (value <= MIN_VALUE) this.zero += times;
    else {
      const index = indexOf(value);
      this.counts.set(index, (this.counts.get(index) ?? 0) + times);
    }
    this.count += times;
    this.sum += value * times;
    this.min = Math.min(this.min, value);
    this.max = Math.max(this.max, value);
  }

  merge(other: Histogram): this {
    for (const [index, n] of other.counts) this.counts.set(index, (this.counts.get(index) ?? 0) + n);
    this.zero += other.zero;
    this.count += other.count;
    this.sum += other.sum;
    this.min = Math.min(this.min, other.min);
    this.max = Math.max(this.max, other.max);
    return this;
  }

  get bucketCount(): number {
    return this.counts.size + (this.zero > 0 ? 1 : 0);
  }

  get mean(): number {
    return this.count > 0 ? this.sum / this.count : NaN;
  }

  /** Nearest-rank quantile (the value at rank ⌈q·n⌉), within RELATIVE_ERROR; NaN when empty. */
  quantile(q: number): number {
    if (this.count === 0) return NaN;
    const rank = Math.max(1, Math.ceil(q * this.count));
    if (rank === this.count) return this.max;
    if (rank <= this.zero) return Math.max(this.min, 0);
    let seen = this.zero;
    for (const index of this.sortedIndexes()) {
      seen += this.counts.get(index)!;
      // The top bucket holds everything clamped above MAX_VALUE: its only honest figure is max.
      if (seen >= rank && index === MAX_INDEX) return this.max;
      // Clamping to the observed range keeps the bound and makes p0/p100 exact.
      if (seen >= rank) return Math.min(this.max, Math.max(this.min, representative(index)));
    }
    return this.max;
  }

  percentiles(): Percentiles {
    const [p50, p90, p95, p99] = STANDARD_QUANTILES.map((q) => this.quantile(q)) as [number, number, number, number];
    return { p50, p90, p95, p99 };
  }

  /** Buckets for plotting, `group` adjacent log buckets merged into one (fewer, wider bars). */
  buckets(group = 1): Bucket[] {
    const out: Bucket[] = [];
    if (this.zero > 0) out.push({ lower: 0, upper: MIN_VALUE, count: this.zero });
    const step = Math.max(1, Math.floor(group));
    for (const index of this.sortedIndexes()) {
      const first = Math.floor(index / step) * step;
      const last = out[out.length - 1];
      const lower = GAMMA ** (first - 1);
      if (last && last.lower === lower) last.count += this.counts.get(index)!;
      else out.push({ lower, upper: GAMMA ** (first + step - 1), count: this.counts.get(index)! });
    }
    return out;
  }

  private sortedIndexes(): number[] {
    return [...this.counts.keys()].sort((a, b) => a - b);
  }

  toJSON(): HistogramJson {
    return {
      count: this.count,
      zero: this.zero,
      sum: this.sum,
      min: this.count > 0 ? this.min : null,
      max: this.count > 0 ? this.max : null,
      buckets: this.sortedIndexes().map((index) => [index, this.counts.get(index)!]),
    };
  }

  static fromJSON(json: HistogramJson): Histogram {
    const h = new Histogram();
    for (const [index, n] of json.buckets) h.counts.set(Math.min(MAX_INDEX, Math.max(MIN_INDEX, index)), n);
    h.zero = json.zero;
    h.count = json.count;
    h.sum = json.sum;
    h.min = json.min ?? Infinity;
    h.max = json.max ?? -Infinity;
    return h;
  }
}
