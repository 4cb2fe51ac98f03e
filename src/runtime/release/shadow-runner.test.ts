import { describe, expect, it } from 'vitest';
import { BusyError, ModelLoadError } from '../errors.ts';
import type { CandidateRun, ClassificationResult, ClassifyOptions, LanternInput } from '../lantern.ts';
import type { ModelDescriptor } from '../model-source.ts';
import type { ModelFiles } from '../protocol.ts';
import { ShadowBook } from './shadow-book.ts';
import { ShadowRunner, type ShadowCandidate, type ShadowRuntime } from './shadow-runner.ts';

const descriptor = (version: string): ModelDescriptor => ({
  id: 'spam', version, title: 'Spam', task: 'text-classification', batch: 'dynamic', labels: ['ham', 'spam'], sizeBytes: 1, samples: [], signed: true,
});
const candidate: ShadowCandidate = {
  key: 'spam@2.0.0', descriptor: descriptor('2.0.0'), files: () => Promise.reject(new Error('not used')), policy: { minRuns: 2, minAgreement: 1 },
};

function result(label: string, version = '1.0.0', ms = 2): ClassificationResult {
  return {
    modelId: 'spam', version, signed: true, predictions: [{ label, score: 0.9, index: 0 }], notes: [], backend: 'wasm', backendReason: { kind: 'wasm-requested' }, unsure: false, unsureBelow: 0, batchSize: 1,
    coldStart: false, retried: false, cached: false, timings: { queueMs: 0, loadMs: 0, preprocessMs: 0, inferenceMs: ms, postprocessMs: 0, totalMs: ms },
  };
}

const input: LanternInput = 'win money now';

/** A runtime whose shadow runs finish only when the test says so, with load the test sets. */
class FakeRuntime implements ShadowRuntime {
  queueDepth = 0;
  schedulerStats = { running: 0 };
  calls: { target: ModelDescriptor; input: LanternInput; options: ClassifyOptions | undefined; settle: (outcome: ClassificationResult | Error) => void }[] = [];
  /** Candidate runs opened, and how many were closed. */
  opened = 0;
  closed = 0;
  candidate(target: ModelDescriptor, _files: () => Promise<ModelFiles>): CandidateRun {
    this.opened++;
    return {
      load: () => Promise.resolve(),
      classify: (given, options) => new Promise((resolve, reject) => this.calls.push({ target, input: given, options, settle: (o) => (o instanceof Error ? reject(o) : resolve(o)) })),
      close: () => {
        this.closed++;
        return Promise.resolve();
      },
      hung: () => false,
    };
  }
}

function setup(overrides: { hidden?: boolean; candidate?: ShadowCandidate | undefined } = {}) {
  const runtime = new FakeRuntime();
  const deferred: (() => void)[] = [];
  const book = new ShadowBook(undefined);
  const ready: string[] = [];
  const runner = new ShadowRunner({
    runtime, book,
    candidate: () => Promise.resolve('candidate' in overrides ? overrides.candidate : candidate),
    hidden: () => overrides.hidden ?? false,
    onReady: (c) => ready.push(c.key),
    defer: (fn) => deferred.push(fn),
  });
  /** Runs what observe deferred and lets the candidate lookup settle. */
  const tick = async () => {
    for (const fn of deferred.splice(0)) fn();
    await new Promise((resolve) => setTimeout(resolve, 0));
  };
  return { runtime, runner, book, ready, tick };
}

describe('ShadowRunner', () => {
  it('never delays the answer: observe returns before any shadow work, even one that never ends', async () => {
    const { runtime, runner, tick } = setup();
    runner.observe('spam', input, result('spam'));
    expect(runtime.calls).toHaveLength(0);
    await tick();
    expect(runtime.calls).toHaveLength(1);
    expect(runtime.calls[0]!.target.version).toBe('2.0.0');
    expect(runtime.calls[0]!.input).toBe(input);
    // Real requests go first.
    expect(runtime.calls[0]!.options?.priority).toBe('background');
  });

  it('keeps one candidate session across runs and frees it on refresh', async () => {
    const { runtime, runner, tick } = setup();
    for (let i = 0; i < 2; i++) {
      runner.observe('spam', input, result('spam'));
      await tick();
      runtime.calls[i]!.settle(result('spam', '2.0.0'));
      await tick();
    }
    expect([runtime.opened, runtime.closed]).toEqual([1, 0]);
    runner.refresh();
    expect(runtime.closed).toBe(1);
  });

  it('records nothing for a candidate that left shadow while its run was in flight', async () => {
    const { runtime, runner, book, ready, tick } = setup();
    runner.observe('spam', input, result('spam'));
    await tick();
    // Removed, promoted or rejected meanwhile: its figures were dropped with it.
    runner.refresh();
    runtime.calls[0]!.settle(result('spam', '2.0.0'));
    await tick();
    expect(book.figures('spam@2.0.0')).toMatchObject({ runs: 0, errors: 0, skipped: 0 });
    expect(ready).toEqual([]);
  });

  it('compares the candidate\'s top label with the active one\'s, and the latency', async () => {
    const { runtime, runner, book, tick } = setup();
    runner.observe('spam', input, result('spam', '1.0.0', 2));
    await tick();
    runtime.calls[0]!.settle(result('ham', '2.0.0', 4));
    await tick();
    expect(book.figures('spam@2.0.0')).toMatchObject({ runs: 1, agreements: 0, activeMs: 2, candidateMs: 4, activeLabels: { spam: 1 }, candidateLabels: { ham: 1 } });
  });

  it.each([
    ['under load (a batch running)', (r: FakeRuntime) => (r.schedulerStats.running = 1)],
    ['when the queue is not empty', (r: FakeRuntime) => (r.queueDepth = 2)],
  ])('stops %s: the request is counted as skipped', async (_name, load) => {
    const { runtime, runner, book, tick } = setup();
    load(runtime);
    runner.observe('spam', input, result('spam'));
    await tick();
    expect(runtime.calls).toHaveLength(0);
    expect(book.figures('spam@2.0.0')).toMatchObject({ runs: 0, skipped: 1 });
  });

  it('stops while the page is hidden', async () => {
    const { runtime, runner, book, tick } = setup({ hidden: true });
    runner.observe('spam', input, result('spam'));
    await tick();
    expect(runtime.calls).toHaveLength(0);
    expect(book.figures('spam@2.0.0').skipped).toBe(1);
  });

  it('runs one shadow at a time', async () => {
    const { runtime, runner, book, tick } = setup();
    runner.observe('spam', input, result('spam'));
    await tick();
    runner.observe('spam', input, result('spam'));
    await tick();
    expect(runtime.calls).toHaveLength(1);
    expect(book.figures('spam@2.0.0').skipped).toBe(1);
  });

  it('counts a candidate failure as an error, and backpressure as a skip', async () => {
    const { runtime, runner, book, tick } = setup();
    runner.observe('spam', input, result('spam'));
    await tick();
    runtime.calls[0]!.settle(new ModelLoadError('cannot load'));
    await tick();
    runner.observe('spam', input, result('spam'));
    await tick();
    runtime.calls[1]!.settle(new BusyError('busy'));
    await tick();
    expect(book.figures('spam@2.0.0')).toMatchObject({ runs: 0, errors: 1, skipped: 1 });
  });

  it('asks once for promotion when the release\'s bar is met', async () => {
    const { runtime, runner, ready, tick } = setup();
    for (let i = 0; i < 3; i++) {
      runner.observe('spam', input, result('spam'));
      await tick();
      runtime.calls[i]!.settle(result('spam', '2.0.0'));
      await tick();
    }
    expect(ready).toEqual(['spam@2.0.0']);
  });

  it('does nothing without a candidate, or when the candidate is what answered', async () => {
    const none = setup({ candidate: undefined });
    none.runner.observe('spam', input, result('spam'));
    await none.tick();
    expect(none.runtime.calls).toHaveLength(0);
    const same = setup();
    same.runner.observe('spam', input, result('spam', '2.0.0'));
    await same.tick();
    expect(same.runtime.calls).toHaveLength(0);
    expect(same.book.figures('spam@2.0.0')).toMatchObject({ runs: 0, skipped: 0 });
  });
});
