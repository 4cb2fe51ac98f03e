import 'fake-indexeddb/auto';
import { beforeAll, describe, expect, it } from 'vitest';
import { IntegrityError, ModelLoadError } from '../errors.ts';
import type { PackInput } from './manifest.ts';
import type { ModelRegistry } from './registry.ts';
import { StoreModelSource } from './store-model-source.ts';
import { configFor, keyAndTrust, publishedRegistry, TASK_FILE, urls } from './test-helpers.ts';
import type { KeyFile, TrustStore } from './trust.ts';

let key: KeyFile;
let trust: TrustStore;
beforeAll(async () => ({ key, trust } = await keyAndTrust()));

async function setup(...versions: (Partial<PackInput> & { version: string; sequence: number })[]) {
  const { store, registry } = await publishedRegistry(key, trust, ...versions);
  return { store, registry, source: new StoreModelSource(Promise.resolve(registry)) };
}

/** Damages the active version's first chunk and reads it: the store quarantines it. */
async function quarantineActive(registry: ModelRegistry): Promise<void> {
  const manifest = (await registry.activeManifest('demo'))!.manifest;
  await registry.store.putChunk(manifest.files.find((f) => f.role === 'onnx')!.chunks[0]!, new Uint8Array(4096).buffer);
  await expect(registry.readActive('demo')).rejects.toThrow(IntegrityError);
}

describe('StoreModelSource.lastLabels (what a fallback must speak)', () => {
  it('gives the active version\'s labels', async () => {
    const { registry, source } = await setup({ version: '1.0.0', sequence: 1, labels: ['ham', 'spam'] });
    await registry.install(urls('1.0.0'));
    expect(await source.lastLabels('demo')).toEqual(['ham', 'spam']);
  });

  it('still knows them once the only version is quarantined and the model cannot be described', async () => {
    const { registry, source, store } = await setup({ version: '1.0.0', sequence: 1, labels: ['ham', 'spam'] });
    await registry.install(urls('1.0.0'));
    await quarantineActive(registry);
    expect(await store.pointer('demo')).toBeUndefined();
    await expect(source.describe('demo')).rejects.toThrow(ModelLoadError);
    expect(await source.lastLabels('demo')).toEqual(['ham', 'spam']);
  });

  it('takes the version that answered last, not a newer one rolled back (rejected)', async () => {
    const { registry, source, store } = await setup(
      { version: '1.0.0', sequence: 1, labels: ['ham', 'spam'] },
      { version: '1.1.0', sequence: 2, labels: ['ham', 'spam', 'promo'] },
    );
    await registry.install(urls('1.0.0'));
    await registry.install(urls('1.1.0'));
    expect(await store.rollBackFrom('demo@1.1.0', 'too many failures')).toBe('demo@1.0.0');
    await quarantineActive(registry);
    expect((await store.version('demo@1.1.0'))?.status).toBe('rejected');
    expect(await source.lastLabels('demo')).toEqual(['ham', 'spam']);
  });

  it('knows none for a model that was never installed', async () => {
    const { source } = await setup();
    expect(await source.lastLabels('demo')).toBeUndefined();
  });
});

describe('StoreModelSource.describe: the names a version\'s config gives its labels', () => {
  /** A release of `demo` whose config.json names its labels as `names` (config.json's lantern block). */
  const named = (version: string, sequence: number, names: Record<string, unknown>): Partial<PackInput> & { version: string; sequence: number } => {
    const config = JSON.parse(new TextDecoder().decode(configFor({ id: 'demo', version, task: 'text-classification', labels: ['ham', 'spam'] }))) as { lantern: object };
    config.lantern = { ...config.lantern, ...names };
    return {
      version, sequence, labels: ['ham', 'spam'],
      files: [{ path: 'onnx/model.onnx', role: 'onnx', bytes: new Uint8Array(10_000).fill(sequence) }, { path: 'config.json', role: 'config', bytes: new TextEncoder().encode(JSON.stringify(config)) }, TASK_FILE['text-classification']],
    };
  };

  it('lists them in label order, follows the active version, and gives none for a config that names none', async () => {
    const { registry, source } = await setup(
      named('1.0.0', 1, { display_names: { spam: 'Junk mail' }, localized_display_names: { hi: { ham: 'सामान्य', spam: 'स्पैम' } } }),
      { version: '1.1.0', sequence: 2, labels: ['ham', 'spam'] },
    );
    await registry.install(urls('1.0.0'));
    expect((await source.describe('demo')).labelNames).toEqual([{ localizedNames: { hi: 'सामान्य' } }, { displayName: 'Junk mail', localizedNames: { hi: 'स्पैम' } }]);
    expect((await source.list()).map((d) => d.labelNames?.[1]?.displayName)).toEqual(['Junk mail']);
    await registry.install(urls('1.1.0'));
    expect((await source.describe('demo')).labelNames).toEqual([{}, {}]);
  });

  it('names nothing when the stored config no longer matches the signed manifest, and still describes the model', async () => {
    const { registry, source } = await setup(named('1.0.0', 1, { display_names: { spam: 'Junk mail' } }));
    await registry.install(urls('1.0.0'));
    const manifest = (await registry.activeManifest('demo'))!.manifest;
    await registry.store.putChunk(manifest.files.find((f) => f.role === 'config')!.chunks[0]!, new TextEncoder().encode('{"lantern":{"display_names":{"spam":"Free money"}}}').buffer);
    const described = await source.describe('demo');
    expect([described.version, described.labelNames]).toEqual(['1.0.0', undefined]);
  });
});
