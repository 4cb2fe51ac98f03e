import { z } from 'zod/mini';
import type { RequestRecord } from '../lantern.ts';
import { Histogram, HistogramJsonSchema, RELATIVE_ERROR, type Bucket, type Percentiles } from './histogram.ts';
import { TimeRing, timeRingJsonSchema } from './time-ring.ts';
import { REJECTION_CODES } from '../errors.ts';
import { countOf } from '../labels.ts';
import { Listeners } from '../listeners.ts';

/**
 * Turns RequestRecords into bounded, mergeable aggregates: latency histograms per model and
 * backend and stage (sliding window + since start), cold vs warm starts, error counts by code,
 * and the prediction distribution per model over time. Records carry no input, and nothing
 * here could hold one: only numbers, model ids, backends, error codes and model labels.
 */
export const STAGES = ['queue', 'preprocess', 'inference', 'postprocess', 'total'] as const;
export type Stage = (typeof STAGES)[number];
export const COLD_STAGES = ['files', 'create', 'load', 'firstRun', 'total'] as const;
export type ColdStage = (typeof COLD_STAGES)[number];
export const CONFIDENCE_BINS = 10;

export interface AggregatorOptions {
  now?: () => number;
  /** The sliding window, read with one-slot granularity. */
  windowMs?: number;
  windowSlotMs?: number;
  /** Width and number of the prediction-distribution slots. */
  distributionSlotMs?: number;
  distributionSlots?: number;
}

/** Caps that bound the state whatever arrives (unknown models, odd labels). */
export const LIMITS = { series: 32, models: 32, labelsPerModel: 64, codesPerModel: 32 } as const;
const OTHER = '(other)';

const counts = z.record(z.string(), z.int().check(z.nonnegative()));
const stageSet = z.object(Object.fromEntries(STAGES.map((s) => [s, HistogramJsonSchema])) as Record<Stage, typeof HistogramJsonSchema>);
const coldSet = z.object(Object.fromEntries(COLD_STAGES.map((s) => [s, HistogramJsonSchema])) as Record<ColdStage, typeof HistogramJsonSchema>);
const distributionSlot = z.object({ labels: counts, confidence: z.array(z.int().check(z.nonnegative())).check(z.length(CONFIDENCE_BINS)) });

const SeriesJsonSchema = z.object({
  modelId: z.string(),
  backend: z.string(),
  version: z.string(),
  lastAt: z.number(),
  since: stageSet,
  window: timeRingJsonSchema(stageSet, 1000),
  cold: coldSet,
  warm: HistogramJsonSchema,
});
const ModelJsonSchema = z.object({
  modelId: z.string(),
  lastAt: z.number(),
  ok: z.int().check(z.nonnegative()),
  failures: counts,
  distribution: distributionSlot,
  overTime: timeRingJsonSchema(distributionSlot, 1000),
});
export const MetricsStateSchema = z.object({
  format: z.literal('lantern-metrics/1'),
  startedAt: z.number(),
  series: z.array(SeriesJsonSchema).check(z.maxLength(LIMITS.series)),
  models: z.array(ModelJsonSchema).check(z.maxLength(LIMITS.models)),
});
export type MetricsState = z.infer<typeof MetricsStateSchema>;

type StageHistograms<K extends string> = Record<K, Histogram>;
interface DistributionSlot {
  labels: Record<string, number>;
  confidence: number[];
}

interface Series {
  modelId: string;
  backend: string;
  version: string;
  lastAt: number;
  since: StageHistograms<Stage>;
  window: TimeRing<StageHistograms<Stage>>;
  cold: StageHistograms<ColdStage>;
  warm: Histogram;
}

interface ModelStats {
  modelId: string;
  lastAt: number;
  ok: number;
  failures: Record<string, number>;
  distribution: DistributionSlot;
  overTime: TimeRing<DistributionSlot>;
}

export interface StageStats extends Percentiles {
  count: number;
  mean: number;
  min: number;
  max: number;
}

export interface SeriesSnapshot {
  modelId: string;
  backend: string;
  version: string;
  window: { count: number; throughputPerSec: number; stages: Record<Stage, StageStats> };
  since: { count: number; stages: Record<Stage, StageStats> };
  coldStart: { count: number; stages: Record<ColdStage, StageStats> };
  warmStart: StageStats;
  /** Completed requests per second in each window slot (slot start in ms). */
  throughput: { start: number; perSec: number }[];
  /** Total latency since start, log buckets grouped for plotting. */
  latencyBuckets: Bucket[];
}

export interface ModelSnapshot {
  modelId: string;
  requests: number;
  ok: number;
  errors: Record<string, number>;
  rejections: Record<string, number>;
  labels: { label: string; count: number; share: number }[];
  /** Counts of the top score in [i/10, (i+1)/10). */
  confidence: number[];
  overTime: { start: number; total: number; labels: Record<string, number>; confidence: number[] }[];
}

export interface MetricsSnapshot {
  generatedAt: number;
  startedAt: number;
  windowMs: number;
  /** Every latency percentile is within this relative error of the exact value. */
  percentileRelativeError: number;
  totals: { requests: number; ok: number; errors: number; rejections: number };
  series: SeriesSnapshot[];
  models: ModelSnapshot[];
}

const makeStages = <K extends string>(keys: readonly K[]): StageHistograms<K> =>
  Object.fromEntries(keys.map((k) => [k, new Histogram()])) as StageHistograms<K>;
const encodeStages = <K extends string>(set: StageHistograms<K>) =>
  Object.fromEntries(Object.entries<Histogram>(set).map(([k, h]) => [k, h.toJSON()])) as Record<K, ReturnType<Histogram['toJSON']>>;
const decodeStages = <K extends string>(json: Record<K, z.infer<typeof HistogramJsonSchema>>, keys: readonly K[]): StageHistograms<K> =>
  Object.fromEntries(keys.map((k) => [k, Histogram.fromJSON(json[k])])) as StageHistograms<K>;
const emptyDistribution = (): DistributionSlot => ({ labels: {}, confidence: new Array<number>(CONFIDENCE_BINS).fill(0) });
const copyDistribution = (d: DistributionSlot): DistributionSlot => ({ labels: { ...d.labels }, confidence: [...d.confidence] });

function stats(h: Histogram): StageStats {
  return { count: h.count, mean: h.mean, min: h.count ? h.min : NaN, max: h.count ? h.max : NaN, ...h.percentiles() };
}

function statsOf<K extends string>(set: StageHistograms<K>, keys: readonly K[]): Record<K, StageStats> {
  return Object.fromEntries(keys.map((k) => [k, stats(set[k])])) as Record<K, StageStats>;
}

/**
 * Adds to a bounded counter map: past `limit` keys, new keys are counted as "(other)". Keys are
 * model labels, which may be any string: own properties only, and defined rather than assigned
 * so that `constructor` or `__proto__` count like any other label.
 */
function bump(map: Record<string, number>, key: string, limit: number): void {
  const k = Object.hasOwn(map, key) || Object.keys(map).length < limit - 1 ? key : OTHER;
  const count = countOf(map, k) + 1;
  Object.defineProperty(map, k, { value: count, enumerable: true, writable: true, configurable: true });
}

/** Drops the least recently updated entries beyond `limit`. */
function evict<T extends { lastAt: number }>(map: Map<string, T>, limit: number): void {
  if (map.size <= limit) return;
  const oldest = [...map.entries()].sort((a, b) => a[1].lastAt - b[1].lastAt).slice(0, map.size - limit);
  for (const [key] of oldest) map.delete(key);
}

export class MetricsAggregator {
  private readonly now: () => number;
  readonly windowMs: number;
  private readonly windowSlotMs: number;
  private readonly distributionSlotMs: number;
  private readonly distributionSlots: number;
  private startedAt: number;
  private readonly series = new Map<string, Series>();
  private readonly models = new Map<string, ModelStats>();
  private readonly listeners = new Listeners();

  constructor(options: AggregatorOptions = {}) {
    this.now = options.now ?? Date.now;
    this.windowMs = options.windowMs ?? 5 * 60_000;
    this.windowSlotMs = options.windowSlotMs ?? 10_000;
    this.distributionSlotMs = options.distributionSlotMs ?? 10 * 60_000;
    this.distributionSlots = options.distributionSlots ?? 144;
    this.startedAt = this.now();
  }

  /** Called on every change (for the view and the debounced save). */
  subscribe(listener: () => void): () => void {
    return this.listeners.subscribe(listener);
  }

  private changed(): void {
    this.listeners.notify();
  }

  readonly record = (record: RequestRecord): void => {
    const now = this.now();
    const model = this.model(record.modelId, now);
    if (!record.ok) {
      bump(model.failures, record.errorCode, LIMITS.codesPerModel);
      this.changed();
      return;
    }
    model.ok++;
    const bin = Math.min(CONFIDENCE_BINS - 1, Math.max(0, Math.floor(record.score * CONFIDENCE_BINS)));
    for (const slot of [model.distribution, model.overTime.at(now)]) {
      bump(slot.labels, record.label, LIMITS.labelsPerModel);
      slot.confidence[bin]!++;
    }

    const series = this.seriesFor(record.modelId, record.backend, now);
    series.version = record.version;
    const t = record.timings;
    const values: Record<Stage, number> = { queue: t.queueMs, preprocess: t.preprocessMs, inference: t.inferenceMs, postprocess: t.postprocessMs, total: t.totalMs };
    const slot = series.window.at(now);
    for (const stage of STAGES) {
      const value = Math.max(0, values[stage]);
      series.since[stage].record(value);
      slot[stage].record(value);
    }
    if (record.coldStart) {
      const cold = series.cold;
      cold.load.record(Math.max(0, t.loadMs));
      if (record.load) {
        cold.files.record(Math.max(0, record.load.filesMs));
        cold.create.record(Math.max(0, record.load.createMs));
      }
      cold.firstRun.record(Math.max(0, t.preprocessMs + t.inferenceMs + t.postprocessMs));
      cold.total.record(Math.max(0, t.totalMs));
    } else {
      series.warm.record(Math.max(0, t.totalMs));
    }
    this.changed();
  };

  private model(modelId: string, now: number): ModelStats {
    let model = this.models.get(modelId);
    if (!model) {
      model = { modelId, lastAt: now, ok: 0, failures: {}, distribution: emptyDistribution(), overTime: this.newOverTime() };
      this.models.set(modelId, model);
      evict(this.models, LIMITS.models);
    }
    model.lastAt = now;
    return model;
  }

  private seriesFor(modelId: string, backend: string, now: number): Series {
    const key = `${modelId}\u0000${backend}`;
    let series = this.series.get(key);
    if (!series) {
      series = { modelId, backend, version: '', lastAt: now, since: makeStages(STAGES), window: this.newWindow(), cold: makeStages(COLD_STAGES), warm: new Histogram() };
      this.series.set(key, series);
      evict(this.series, LIMITS.series);
    }
    series.lastAt = now;
    return series;
  }

  private newWindow(): TimeRing<StageHistograms<Stage>> {
    return new TimeRing(this.windowSlotMs, Math.ceil(this.windowMs / this.windowSlotMs), () => makeStages(STAGES));
  }

  private newOverTime(): TimeRing<DistributionSlot> {
    return new TimeRing(this.distributionSlotMs, this.distributionSlots, emptyDistribution);
  }

  snapshot(): MetricsSnapshot {
    const now = this.now();
    const series = [...this.series.values()].map((s) => this.seriesSnapshot(s, now));
    const models = [...this.models.values()].map((m) => this.modelSnapshot(m));
    const sum = (f: (m: ModelSnapshot) => number) => models.reduce((acc, m) => acc + f(m), 0);
    const total = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);
    const ok = sum((m) => m.ok);
    const errors = sum((m) => total(m.errors));
    const rejections = sum((m) => total(m.rejections));
    return {
      generatedAt: now,
      startedAt: this.startedAt,
      windowMs: this.windowMs,
      percentileRelativeError: RELATIVE_ERROR,
      totals: { requests: ok + errors + rejections, ok, errors, rejections },
      series,
      models,
    };
  }

  private seriesSnapshot(s: Series, now: number): SeriesSnapshot {
    const slots = s.window.within(now, this.windowMs);
    const window = makeStages(STAGES);
    for (const slot of slots) for (const stage of STAGES) window[stage].merge(slot.value[stage]);
    // A window that has not been open for its full length yet is not diluted by the missing part.
    const spanSec = Math.max(1, Math.min(this.windowMs, now - this.startedAt)) / 1000;
    return {
      modelId: s.modelId,
      backend: s.backend,
      version: s.version,
      window: { count: window.total.count, throughputPerSec: window.total.count / spanSec, stages: statsOf(window, STAGES) },
      since: { count: s.since.total.count, stages: statsOf(s.since, STAGES) },
      coldStart: { count: s.cold.total.count, stages: statsOf(s.cold, COLD_STAGES) },
      warmStart: stats(s.warm),
      throughput: slots.map((slot) => ({ start: slot.start, perSec: slot.value.total.count / (this.windowSlotMs / 1000) })),
      latencyBuckets: s.since.total.buckets(10),
    };
  }

  private modelSnapshot(m: ModelStats): ModelSnapshot {
    const errors: Record<string, number> = {};
    const rejections: Record<string, number> = {};
    for (const [code, n] of Object.entries(m.failures)) (REJECTION_CODES.includes(code) ? rejections : errors)[code] = n;
    const labelTotal = Object.values(m.distribution.labels).reduce((a, b) => a + b, 0);
    const failed = Object.values(m.failures).reduce((a, b) => a + b, 0);
    return {
      modelId: m.modelId,
      requests: m.ok + failed,
      ok: m.ok,
      errors,
      rejections,
      labels: Object.entries(m.distribution.labels)
        .map(([label, count]) => ({ label, count, share: labelTotal ? count / labelTotal : 0 }))
        .sort((a, b) => b.count - a.count || a.label.localeCompare(b.label)),
      confidence: [...m.distribution.confidence],
      overTime: m.overTime.all().map((slot) => ({
        start: slot.start,
        total: slot.value.confidence.reduce((a, b) => a + b, 0),
        ...copyDistribution(slot.value),
      })),
    };
  }

  /** The persisted form: bounded by LIMITS, the rings' lengths and the histograms' bucket cap. */
  toJSON(): MetricsState {
    const now = this.now();
    return {
      format: 'lantern-metrics/1',
      startedAt: this.startedAt,
      series: [...this.series.values()].map((s) => {
        s.window.expire(now);
        return {
          modelId: s.modelId, backend: s.backend, version: s.version, lastAt: s.lastAt,
          since: encodeStages(s.since), window: s.window.toJSON(encodeStages), cold: encodeStages(s.cold), warm: s.warm.toJSON(),
        };
      }),
      models: [...this.models.values()].map((m) => {
        m.overTime.expire(now);
        return {
          modelId: m.modelId, lastAt: m.lastAt, ok: m.ok, failures: { ...m.failures },
          distribution: copyDistribution(m.distribution), overTime: m.overTime.toJSON(copyDistribution),
        };
      }),
    };
  }

  /** Replaces the current aggregates with a saved state (validated by the caller). */
  load(state: MetricsState): void {
    this.series.clear();
    this.models.clear();
    this.startedAt = state.startedAt;
    for (const s of state.series) {
      this.series.set(`${s.modelId}\u0000${s.backend}`, {
        modelId: s.modelId, backend: s.backend, version: s.version, lastAt: s.lastAt,
        since: decodeStages(s.since, STAGES),
        window: this.newWindow().load(s.window, (v) => decodeStages(v, STAGES)),
        cold: decodeStages(s.cold, COLD_STAGES),
        warm: Histogram.fromJSON(s.warm),
      });
    }
    for (const m of state.models) {
      this.models.set(m.modelId, {
        modelId: m.modelId, lastAt: m.lastAt, ok: m.ok, failures: { ...m.failures },
        distribution: copyDistribution(m.distribution),
        overTime: this.newOverTime().load(m.overTime, copyDistribution),
      });
    }
    this.changed();
  }

  reset(): void {
    this.series.clear();
    this.models.clear();
    this.startedAt = this.now();
    this.changed();
  }
}
