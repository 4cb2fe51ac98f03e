import { describe, expect, it } from 'vitest';
import type { ClassificationResult, ClassifyInput } from '../lantern.ts';
import { InputError } from '../errors.ts';
import { benchmarkModel, type Classifier } from './benchmark.ts';

function fakeClassifier(failEvery = 0): Classifier & { calls: ClassifyInput[] } {
  const calls: ClassifyInput[] = [];
  return {
    calls,
    classify: async (modelId, input) => {
      calls.push(input);
      if (failEvery && calls.length % failEvery === 0) throw new InputError('bad', { reason: 'corrupt' });
      return { modelId, backend: 'wasm' } as ClassificationResult;
    },
  };
}

describe('benchmarkModel', () => {
  const inputs: ClassifyInput[] = [{ kind: 'text', text: 'a' }, { kind: 'text', text: 'b' }];

  it('runs the warm-up and then N runs, cycling through the samples', async () => {
    const c = fakeClassifier();
    const row = await benchmarkModel(c, 'm', inputs, { warmup: 2, runs: 5 });
    expect(c.calls).toHaveLength(7);
    expect(c.calls.map((i) => (i.kind === 'text' ? i.text : ''))).toEqual(['a', 'b', 'a', 'b', 'a', 'b', 'a']);
    expect(row).toMatchObject({ modelId: 'm', backend: 'wasm', runs: 5, errors: 0 });
    expect(row.p50).toBeGreaterThanOrEqual(0);
    expect(row.throughputPerSec).toBeGreaterThan(0);
  });

  it('counts failed runs instead of stopping', async () => {
    const row = await benchmarkModel(fakeClassifier(3), 'm', inputs, { warmup: 1, runs: 6 });
    expect(row.errors).toBe(2);
  });

  it('refuses a model without samples, and stops when aborted', async () => {
    await expect(benchmarkModel(fakeClassifier(), 'm', [])).rejects.toThrow(RangeError);
    const controller = new AbortController();
    controller.abort();
    await expect(benchmarkModel(fakeClassifier(), 'm', inputs, { warmup: 0, signal: controller.signal })).rejects.toThrow();
  });
});
