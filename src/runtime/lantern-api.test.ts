import { describe, expect, it } from 'vitest';
import { SignatureError } from './errors.ts';
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
    await expect(lantern.classify('m', 'hello')).rejects.toThrow('no worker in this test');
    expect(created).toHaveLength(1);
    // The source was asked to make the model available first (signedStore installs it there).
    expect(models.prepared).toEqual(['m']);
    lantern.dispose();
  });

  it('a signed model needs no opt-in', async () => {
    const created: string[] = [];
    const lantern = Lantern.create({ models: source(true), createWorker: noWorker(created) });
    await expect(lantern.classify('m', 'hello')).rejects.toThrow('no worker in this test');
    expect(created).toHaveLength(1);
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
