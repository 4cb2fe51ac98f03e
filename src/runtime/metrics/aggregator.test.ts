import { describe, expect, it } from 'vitest';
import { LIMITS, MetricsAggregator, MetricsStateSchema } from './aggregator.ts';
import { mulberry32 as seeded } from '../../../models/spam-filter/recipe/corpus.mjs';
import { failedRecord, okRecord } from './aggregator.test-helpers.ts';

function clock(start = 1_700_000_000_000) {
  const c = { t: start, now: () => c.t };
  return c;
}

describe('MetricsAggregator', () => {
  it('keeps latency per model, backend and stage, with exact counts', () => {
    const c = clock();
    const agg = new MetricsAggregator({ now: c.now });
    for (let i = 1; i <= 100; i++) agg.record(okRecord({ timings: { queueMs: i, loadMs: 0, preprocessMs: 1, inferenceMs: 2 * i, postprocessMs: 0, totalMs: 3 * i } }));
    agg.record(okRecord({ backend: 'webgpu' }));
    agg.record(okRecord({ modelId: 'fashion-mnist', label: 'Bag' }));
    const snap = agg.snapshot();
    expect(snap.series.map((s) => [s.modelId, s.backend, s.since.count])).toEqual([
      ['spam-filter', 'wasm', 100], ['spam-filter', 'webgpu', 1], ['fashion-mnist', 'wasm', 1],
    ]);
    const wasm = snap.series[0]!;
    const within = (actual: number, exact: number) => expect(Math.abs(actual - exact) / exact).toBeLessThanOrEqual(snap.percentileRelativeError);
    within(wasm.since.stages.total.p50, 150);
    within(wasm.since.stages.inference.p99, 198);
    within(wasm.since.stages.queue.p90, 90);
    expect(wasm.since.stages.postprocess.p50).toBe(0);
    expect(wasm.since.stages.total.max).toBe(300);
    expect(snap.totals).toEqual({ requests: 102, ok: 102, errors: 0, rejections: 0 });
  });

  it('separates cold starts (with their load breakdown) from warm ones', () => {
    const agg = new MetricsAggregator({ now: clock().now });
    agg.record(okRecord({ coldStart: true, load: { filesMs: 40, createMs: 60 }, timings: { queueMs: 0, loadMs: 120, preprocessMs: 5, inferenceMs: 20, postprocessMs: 1, totalMs: 150 } }));
    for (let i = 0; i < 9; i++) agg.record(okRecord());
    const s = agg.snapshot().series[0]!;
    expect(s.coldStart.count).toBe(1);
    expect(s.coldStart.stages.files.p50).toBe(40);
    expect(s.coldStart.stages.create.p50).toBe(60);
    expect(s.coldStart.stages.load.p50).toBe(120);
    expect(s.coldStart.stages.firstRun.p50).toBe(26);
    expect(s.coldStart.stages.total.p50).toBe(150);
    expect(s.warmStart.count).toBe(9);
    expect(s.warmStart.p50).toBe(14);
  });

  it('counts errors and rejections by code, per model', () => {
    const agg = new MetricsAggregator({ now: clock().now });
    for (const code of ['BUSY', 'BUSY', 'CANCELLED', 'TIMEOUT', 'INPUT', 'INPUT', 'WORKER_CRASHED']) agg.record(failedRecord(code));
    agg.record(failedRecord('MODEL_LOAD', 'other-model'));
    agg.record(okRecord());
    const snap = agg.snapshot();
    const spam = snap.models.find((m) => m.modelId === 'spam-filter')!;
    expect(spam.rejections).toEqual({ BUSY: 2, CANCELLED: 1, TIMEOUT: 1 });
    expect(spam.errors).toEqual({ INPUT: 2, WORKER_CRASHED: 1 });
    expect(spam.requests).toBe(8);
    expect(snap.totals).toEqual({ requests: 9, ok: 1, errors: 4, rejections: 4 });
  });

  it('the sliding window forgets old requests; since-start keeps them', () => {
    const c = clock(0);
    const agg = new MetricsAggregator({ now: c.now, windowMs: 60_000, windowSlotMs: 10_000 });
    for (let i = 0; i < 30; i++) agg.record(okRecord());
    c.t = 45_000;
    for (let i = 0; i < 10; i++) agg.record(okRecord({ timings: { queueMs: 0, loadMs: 0, preprocessMs: 0, inferenceMs: 100, postprocessMs: 0, totalMs: 100 } }));
    let s = agg.snapshot().series[0]!;
    expect(s.window.count).toBe(40);
    expect(s.window.throughputPerSec).toBeCloseTo(40 / 45, 6);
    // The window is read with one-slot granularity: the [0, 10 s) slot leaves once it ended a window ago.
    c.t = 75_000;
    s = agg.snapshot().series[0]!;
    expect(s.window.count).toBe(10);
    expect(s.window.stages.total.p50).toBe(100);
    expect(s.window.throughputPerSec).toBeCloseTo(10 / 60, 6);
    expect(s.since.count).toBe(40);
    expect(s.throughput).toEqual([{ start: 40_000, perSec: 1 }]);
    c.t = 200_000;
    expect(agg.snapshot().series[0]!.window.count).toBe(0);
    expect(agg.snapshot().series[0]!.since.stages.total.p50).toBe(14);
  });

  it('tracks label shares and a confidence histogram, overall and per time slot', () => {
    const c = clock(0);
    const agg = new MetricsAggregator({ now: c.now, distributionSlotMs: 60_000 });
    agg.record(okRecord({ label: 'ham', score: 0.95 }));
    agg.record(okRecord({ label: 'ham', score: 0.55 }));
    agg.record(okRecord({ label: 'spam', score: 1 }));
    c.t = 61_000;
    agg.record(okRecord({ label: 'spam', score: 0.05 }));
    const m = agg.snapshot().models[0]!;
    expect(m.labels).toEqual([{ label: 'ham', count: 2, share: 0.5 }, { label: 'spam', count: 2, share: 0.5 }]);
    expect(m.confidence).toEqual([1, 0, 0, 0, 0, 1, 0, 0, 0, 2]);
    expect(m.overTime.map((s) => [s.start, s.total, s.labels])).toEqual([[0, 3, { ham: 2, spam: 1 }], [60_000, 1, { spam: 1 }]]);
  });

  it('counts labels named like Object.prototype members as plain labels', () => {
    const agg = new MetricsAggregator({ now: () => 0 });
    for (const label of ['constructor', 'constructor', '__proto__', 'toString']) agg.record(okRecord({ label }));
    expect(agg.snapshot().models[0]!.labels).toEqual([
      { label: 'constructor', count: 2, share: 0.5 }, { label: '__proto__', count: 1, share: 0.25 }, { label: 'toString', count: 1, share: 0.25 },
    ]);
  });

  it('stays bounded: labels, models and series are capped', () => {
    const agg = new MetricsAggregator({ now: clock().now });
    for (let i = 0; i < 200; i++) agg.record(okRecord({ label: `label-${i}` }));
    for (let i = 0; i < 50; i++) agg.record(okRecord({ modelId: `m${i}`, backend: i % 2 ? 'wasm' : 'webgpu' }));
    const snap = agg.snapshot();
    expect(snap.series.length).toBe(LIMITS.series);
    expect(snap.models.length).toBe(LIMITS.models);
    expect(snap.models.map((m) => m.modelId)).toContain('m49');
  });

  it('the saved state is bounded in size however long it runs', () => {
    const random = seeded(5);
    const c = clock(0);
    const agg = new MetricsAggregator({ now: c.now });
    for (let i = 0; i < 50_000; i++) {
      c.t += random() * 20_000;
      const v = () => Math.exp(random() * 12 - 3);
      agg.record(okRecord({
        modelId: `m${i % 4}`, backend: i % 3 ? 'wasm' : 'webgpu', label: `l${Math.floor(random() * 20)}`, score: random(), coldStart: random() < 0.01,
        timings: { queueMs: v(), loadMs: v(), preprocessMs: v(), inferenceMs: v(), postprocessMs: v(), totalMs: v() },
      }));
    }
    const size = JSON.stringify(agg.toJSON()).length;
    expect(size).toBeLessThan(2_000_000);
    expect(agg.snapshot().totals.requests).toBe(50_000);
  });

  it('round-trips through its persisted form', () => {
    const c = clock();
    const agg = new MetricsAggregator({ now: c.now });
    agg.record(okRecord({ coldStart: true, load: { filesMs: 1, createMs: 2 } }));
    agg.record(okRecord({ backend: 'webgpu', label: 'spam', score: 0.4 }));
    agg.record(failedRecord('BUSY'));
    const state = MetricsStateSchema.parse(JSON.parse(JSON.stringify(agg.toJSON())));
    const copy = new MetricsAggregator({ now: c.now });
    copy.load(state);
    expect(copy.snapshot()).toEqual(agg.snapshot());
    copy.reset();
    expect(copy.snapshot().totals.requests).toBe(0);
  });

  it('notifies subscribers on every record', () => {
    const agg = new MetricsAggregator({ now: clock().now });
    let calls = 0;
    const off = agg.subscribe(() => calls++);
    agg.record(okRecord());
    agg.record(failedRecord('INPUT'));
    off();
    agg.record(okRecord());
    expect(calls).toBe(2);
  });
});
