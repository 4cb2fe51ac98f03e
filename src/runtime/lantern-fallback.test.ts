import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ModelLoadError } from './errors.ts';
import { Lantern } from './lantern.ts';
import type { ModelDescriptor, ModelSource } from './model-source.ts';
import { fakeWorkers, stubNavigatorLocks } from './worker.test-helpers.ts';

/**
 * Fallback models in the runtime (release/fallback.ts): `main` cannot answer and names `small`
 * as its fallback. Whether `small` answers depends on the labels `main` answers in, also when
 * `main` cannot be described at all.
 */
let lantern: Lantern | undefined;
beforeEach(stubNavigatorLocks);
afterEach(() => {
  lantern?.dispose();
  lantern = undefined;
  vi.unstubAllGlobals();
});

const descriptor = (id: string, labels: string[]): ModelDescriptor => ({ id, version: '1.0.0', title: id, task: 'text-classification', batch: 'dynamic', labels, sizeBytes: 0, samples: [], signed: true });

/**
 * `main` is described with `mainLabels`, or (undefined) cannot be described — its only version was
 * quarantined — while its source still knows the labels it last answered in (`lastLabels`).
 */
function setup(options: { mainLabels?: string[]; lastLabels?: string[]; smallLabels: string[]; withLastLabels?: boolean }) {
  const { createWorker } = fakeWorkers();
  const gone = new ModelLoadError('There is no installed model called "main".', { id: 'main' });
  const source: ModelSource = {
    list: () => Promise.resolve([]),
    describe: (id) => {
      if (id === 'small') return Promise.resolve(descriptor('small', options.smallLabels));
      return options.mainLabels ? Promise.resolve(descriptor('main', options.mainLabels)) : Promise.reject(gone);
    },
    // A describable main whose files cannot be loaded: its load fails.
    files: (id) => (id === 'small' ? Promise.resolve({ key: 'small@1.0.0', onnx: new ArrayBuffer(8), config: {} }) : Promise.reject(new ModelLoadError('bad protobuf', { id }))),
    ...(options.withLastLabels === false ? {} : { lastLabels: (id: string) => Promise.resolve(id === 'main' ? options.lastLabels : options.smallLabels) }),
  };
  lantern = new Lantern({ createWorker, models: source, idleMs: 0, policies: { fallbackFor: (id) => (id === 'main' ? 'small' : undefined), cacheEnabled: () => false } });
  return lantern;
}

const text = { kind: 'text' as const, text: 'ham' };

describe('a fallback answers only in its primary\'s labels', () => {
  it('answers for a primary that fails to load and speaks its labels', async () => {
    const result = await setup({ mainLabels: ['ham', 'spam'], smallLabels: ['spam', 'ham'] }).classify('main', text);
    expect(result.answeredByFallback).toMatchObject({ requested: 'main', code: 'MODEL_LOAD' });
    expect(result.modelId).toBe('small');
  });

  it('does not answer for a describable primary with other labels', async () => {
    await expect(setup({ mainLabels: ['ham', 'spam'], smallLabels: ['ham', 'spam', 'promo'] }).classify('main', text)).rejects.toThrow('bad protobuf');
  });

  it('answers for a primary that cannot be described (quarantined, nothing to hand over to) in the labels it last answered in', async () => {
    const result = await setup({ lastLabels: ['ham', 'spam'], smallLabels: ['ham', 'spam'] }).classify('main', text);
    expect(result.answeredByFallback).toMatchObject({ requested: 'main', code: 'MODEL_LOAD' });
  });

  it('does not answer for a primary that cannot be described when its last labels differ', async () => {
    await expect(setup({ lastLabels: ['ham', 'spam'], smallLabels: ['ham', 'spam', 'promo'] }).classify('main', text)).rejects.toThrow('There is no installed model called "main".');
  });

  it('does not answer when the primary\'s labels are unknown: its own error is the answer', async () => {
    await expect(setup({ smallLabels: ['ham', 'spam'] }).classify('main', text)).rejects.toBeInstanceOf(ModelLoadError);
    lantern?.dispose();
    await expect(setup({ smallLabels: ['ham', 'spam'], withLastLabels: false }).classify('main', text)).rejects.toBeInstanceOf(ModelLoadError);
  });
});
