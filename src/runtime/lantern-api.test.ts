import { describe, expect, it } from 'vitest';
import { InputError, RuntimeUnavailableError, SignatureError } from './errors.ts';
import { Lantern } from './lantern.ts';
import type { ModelDescriptor, ModelSource } from './model-source.ts';

/** A source whose one model is (un)signed; no worker is ever needed to refuse it. */
function source(signed: boolean): ModelSource & { prepared: string[] } {
  const descriptor: ModelDescriptor = { id: 'm', version: 'dev', title: 'm', task: 'text-classification', batch: 'dynamic', labels: ['a', 'b'], sizeBytes: 0, samples: [], signed };
  const prepared: string[] = [];
  return {
    prepared,
    list: async () => [descriptor],
    describe: async () => descriptor,
    prepare: async (id) => {
      prepared.push(id);
      await new Promise((resolve) => setTimeout(resolve, 1));
    },
    files: async () => {
      throw new Error('files are not read in this test');
    },
  };
}

const noWorker = (created: string[]) => (name: string): Worker => {
  created.push(name);
  throw new Error('no worker in this test');
};

describe('Lantern and unsigned models', () => {
  it('refuses an unsigned model by default, before any worker starts or any file is read', async () => {
    const created: string[] = [];
    const lantern = Lantern.create({ models: source(false), createWorker: noWorker(created) });
    await expect(lantern.classify('m', 'hello')).rejects.toBeInstanceOf(SignatureError);
    await expect(lantern.load('m')).rejects.toThrow(/allowUnsigned/);
    expect(created).toEqual([]);
    lantern.dispose();
  });

  it('lets it through with allowUnsigned (the request reaches a worker)', async () => {
    const created: string[] = [];
    const models = source(false);
    const lantern = Lantern.create({ models, allowUnsigned: true, createWorker: noWorker(created) });
    await expect(lantern.classify('m', 'hello')).rejects.toThrow(new RuntimeUnavailableError('The inference worker could not be created: no worker in this test'));
    // Tried once more on a fresh worker, as after any worker failure.
    expect(created).toHaveLength(2);
    // The source was asked to make the model available first (signedStore installs it there).
    expect(models.prepared).toEqual(['m']);
    lantern.dispose();
  });

  it('a signed model needs no opt-in', async () => {
    const created: string[] = [];
    const lantern = Lantern.create({ models: source(true), createWorker: noWorker(created) });
    await expect(lantern.classify('m', 'hello')).rejects.toThrow(RuntimeUnavailableError);
    expect(created).toHaveLength(2);
    lantern.dispose();
  });

  it('concurrent first requests share one prepare (one install, not a busy refusal)', async () => {
    const models = source(true);
    const lantern = Lantern.create({ models, createWorker: noWorker([]) });
    await Promise.allSettled([lantern.classify('m', 'a'), lantern.classify('m', 'b'), lantern.load('m')]);
    expect(models.prepared).toEqual(['m']);
    lantern.dispose();
  });
});

describe('classify options', () => {
  it('refuses a topK, priority or timeoutMs it would misread with a typed InputError, before any install or worker', async () => {
    const created: string[] = [];
    const models = source(true);
    const lantern = Lantern.create({ models, createWorker: noWorker(created) });
    // Before: topK 0 and NaN answered with no predictions, -1 dropped the last label, and an
    // unknown priority failed inside the scheduler as an INTERNAL TypeError.
    for (const [option, options] of [['topK', { topK: 0 }], ['topK', { topK: -1 }], ['topK', { topK: Number.NaN }], ['topK', { topK: 2.5 }], ['priority', { priority: 'urgent' as 'interactive' }], ['timeoutMs', { timeoutMs: Number.NaN }], ['runTimeoutMs', { runTimeoutMs: Number.NaN }]] as const) {
      const error = await lantern.classify('m', 'hello', options).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InputError);
      expect((error as InputError).details).toEqual({ reason: 'bad-option', option });
    }
    await expect(lantern.candidate(await models.describe('m'), async () => ({ key: 'k', onnx: new ArrayBuffer(0), config: {} })).classify('hello', { topK: 0 })).rejects.toBeInstanceOf(InputError);
    expect(models.prepared).toEqual([]);
    expect(created).toEqual([]);
    // Valid options still go through (to the worker, which this test does not have).
    await expect(lantern.classify('m', 'hello', { topK: 9, priority: 'background', timeoutMs: 1000 })).rejects.toThrow('no worker in this test');
    lantern.dispose();
  });
});
