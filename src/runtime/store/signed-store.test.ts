import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { DowngradeError, ValidationError, type LanternError } from '../errors.ts';
import { signedCatalog } from '../../../scripts/model-pack/release.ts';
import { totalSize } from './manifest.ts';
import type { CandidateValidator } from './registry.ts';
import { signedStore } from './signed-store.ts';
import { FakeServer, makeRelease, ORIGIN } from './test-helpers.ts';
import { generateKey, trustEntryFor } from './trust.ts';

const json = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
let databases = 0;

/** A deployment as `npm run build` serves it, whose catalog lists demo 1.0.0 with a signed golden set. */
async function deploymentWithGatedRelease() {
  const key = await generateKey('publisher');
  const release = await makeRelease(key, {
    version: '1.0.0', sequence: 1,
    validation: { threshold: 1, items: [{ input: { kind: 'text', text: 'a golden mail' }, label: 'a' }] },
  });
  const server = new FakeServer();
  server.add(release);
  server.put('registry-config.json', json({ catalogUrl: 'catalog.json', allowedOrigins: [] }));
  server.put('trust-store.json', json({ version: 2, keys: [trustEntryFor(key, ['demo'])] }));
  const { catalog, signature } = await signedCatalog([{
    id: 'demo', version: '1.0.0', sequence: 1, manifest: 'demo/1.0.0/manifest.json', signature: 'demo/1.0.0/manifest.sig.json', size: totalSize(release.manifest),
  }], { keys: [key] });
  server.put('catalog.json', catalog);
  server.put('catalog.sig.json', signature);
  return { server, key, options: { base: `${ORIGIN}/`, fetch: server.fetch, dbName: `signed-store-${databases++}` } };
}

describe('signedStore', () => {
  it('runs a release\'s golden set before installing it on first use, and refuses one that fails it', async () => {
    const { options } = await deploymentWithGatedRelease();
    const judged: string[] = [];
    const failing: CandidateValidator = async (manifest) => {
      judged.push(`${manifest.id}@${manifest.version}`);
      return { total: 1, correct: 0, failed: 0 };
    };
    const store = signedStore({ ...options, validate: failing });
    const error = await store.prepare('demo').then(() => undefined, (e: unknown) => e);
    expect(judged).toEqual(['demo@1.0.0']);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).message).toMatch(/was not activated/);
    await expect(store.files('demo')).rejects.toThrow(/no installed model/);
  });

  it('installs it when the golden set passes', async () => {
    const { options } = await deploymentWithGatedRelease();
    const store = signedStore({ ...options, validate: async () => ({ total: 1, correct: 1, failed: 0 }) });
    await store.prepare('demo');
    expect((await store.files('demo')).key).toBe('demo@1.0.0');
  });

  it('tells the app of a served trust store it refused (older than the one it saved), and keeps answering with the saved one', async () => {
    const { server, key, options } = await deploymentWithGatedRelease();
    const passing: CandidateValidator = async () => ({ total: 1, correct: 1, failed: 0 });
    await signedStore({ ...options, validate: passing }).prepare('demo');
    // A new deployment whose trust store restarts at version 1 (as a developer's own first one might).
    server.put('trust-store.json', json({ version: 1, keys: [trustEntryFor(key, ['demo'])] }));
    const refusals: LanternError[] = [];
    const store = signedStore({ ...options, validate: passing, onRefused: (error) => refusals.push(error) });
    expect((await store.files('demo')).key).toBe('demo@1.0.0');
    await expect.poll(() => refusals.length).toBe(1);
    expect(refusals[0]).toBeInstanceOf(DowngradeError);
  });
});
