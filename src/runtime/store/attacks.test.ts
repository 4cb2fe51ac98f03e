import 'fake-indexeddb/auto';
import { beforeAll, describe, expect, it } from 'vitest';
import { DowngradeError, SignatureError } from '../errors.ts';
import { sequenceFromVersion } from '../../../scripts/model-pack/sequence.ts';
import { OriginPolicy } from './catalog.ts';
import type { ModelStore } from './model-store.ts';
import { ModelRegistry } from './registry.ts';
import { FakeServer, freshStore, makeRelease, ORIGIN, urls, type TestRelease } from './test-helpers.ts';
import { generateKey, TrustStore, trustEntryFor, type KeyFile } from './trust.ts';

/**
 * The attack suite (issue 12): one test per attack on the trust model, each with real Ed25519
 * signatures and fake-indexeddb. Every test asserts the typed error AND that the version that was
 * active before still answers, read back verified byte for byte.
 */

let builtin: KeyFile;
let acme: KeyFile;
let rogue: KeyFile;
beforeAll(async () => {
  [builtin, acme, rogue] = await Promise.all([generateKey('Built-in models'), generateKey('Acme'), generateKey('Rogue')]);
});

/** The deployment's trust store: built-ins for the built-in key, `acme/` for Acme, plus extras. */
const trustOf = (...extra: [KeyFile, string[]][]) => new TrustStore({
  keys: [trustEntryFor(builtin, ['spam-filter']), trustEntryFor(acme, ['acme/']), ...extra.map(([k, scope]) => trustEntryFor(k, scope))],
});

const release = (key: KeyFile, id: string, version: string, sequence: number, seed = sequence % 1000) =>
  makeRelease(key, { id, version, sequence }, new Uint8Array(10_000).map((_, i) => (i * 7 + seed) & 0xff));

async function world(trust = trustOf()) {
  const store = await freshStore();
  const server = new FakeServer();
  const registryWith = (t: TrustStore) => new ModelRegistry({ store, trust: t, policy: new OriginPolicy(ORIGIN), fetch: server.fetch, backoffMs: 1, retries: 1 });
  const publish = (...releases: TestRelease[]) => releases.forEach((r) => server.add(r));
  return { store, server, publish, registry: registryWith(trust), registryWith };
}

/** The active version of `id` is `r` and reads back verified, byte for byte. */
async function expectAnswers(registry: ModelRegistry, r: TestRelease): Promise<void> {
  const { manifest, read } = await registry.readActive(r.manifest.id);
  expect(manifest.version).toBe(r.manifest.version);
  expect([...read.files.get('onnx')!]).toEqual([...r.files.get('onnx/model.onnx')!]);
}

const install = (registry: ModelRegistry, r: TestRelease) => registry.install(urls(r.manifest.version, r.manifest.id));
const errorOf = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e);

describe('attack: another publisher signs a model outside its scope', () => {
  it('refuses Acme signing spam-filter, even at MAX_SAFE_INTEGER, and the built-in keeps answering and updating', async () => {
    const { registry, publish, store } = await world();
    const v1 = await release(builtin, 'spam-filter', '1.0.0', 10);
    const takeover = await release(acme, 'spam-filter', '9.9.9', Number.MAX_SAFE_INTEGER);
    const v11 = await release(builtin, 'spam-filter', '1.1.0', 11);
    publish(v1, takeover, v11);
    await install(registry, v1);
    const error = await errorOf(install(registry, takeover));
    expect(error).toBeInstanceOf(SignatureError);
    expect((error as SignatureError).details).toEqual({ keyId: acme.keyId, id: 'spam-filter' });
    expect((error as SignatureError).message).toContain(acme.keyId);
    await expectAnswers(registry, v1);
    expect(await store.highestSequence('spam-filter')).toBe(10);
    await install(registry, v11);
    await expectAnswers(registry, v11);
  });

  it('lets Acme ship under its namespace, and refuses the built-in key there', async () => {
    const { registry, publish } = await world();
    const own = await release(acme, 'acme/spam', '1.0.0', 1);
    const intrusion = await release(builtin, 'acme/spam', '2.0.0', 2);
    publish(own, intrusion);
    await install(registry, own);
    await expect(install(registry, intrusion)).rejects.toThrow(SignatureError);
    await expectAnswers(registry, own);
  });

  it('refuses an out-of-scope sideloaded bundle the same way', async () => {
    const { registry, publish } = await world();
    const v1 = await release(builtin, 'spam-filter', '1.0.0', 1);
    publish(v1);
    await install(registry, v1);
    const { writeBundle } = await import('./bundle.ts');
    const takeover = await release(acme, 'spam-filter', '2.0.0', 2);
    const bundle = new Blob([writeBundle(takeover.bytes, takeover.signatures, [...takeover.files].map(([path, bytes]) => ({ path, bytes })))]);
    await expect(registry.installBundle(bundle)).rejects.toThrow(SignatureError);
    await expectAnswers(registry, v1);
  });
});

describe('attack: sequence abuse', () => {
  it('refuses a different release with an equal sequence; the identical manifest re-installs', async () => {
    const { registry, publish } = await world();
    const v1 = await release(builtin, 'spam-filter', '1.0.0', 5);
    const twin = await release(builtin, 'spam-filter', '1.0.1', 5);
    publish(v1, twin);
    await install(registry, v1);
    await expect(install(registry, twin)).rejects.toThrow(DowngradeError);
    await expectAnswers(registry, v1);
    await expect(install(registry, v1)).resolves.toMatchObject({ key: 'spam-filter@1.0.0', status: 'ready' });
    await expectAnswers(registry, v1);
  });

  it('refuses a re-signed release that reuses an installed version number with other contents', async () => {
    const { registry, server, store } = await world();
    const v1 = await release(builtin, 'spam-filter', '1.0.0', 5);
    const v2 = await release(builtin, 'spam-filter', '2.0.0', 6);
    server.add(v1);
    server.add(v2);
    await install(registry, v1);
    await install(registry, v2);
    // 1.0.0 is retained for rollback; a different "1.0.0" at a higher sequence must not replace its bytes.
    const resigned = await release(builtin, 'spam-filter', '1.0.0', 7, 99);
    server.add(resigned);
    await expect(install(registry, resigned)).rejects.toThrow(DowngradeError);
    await expectAnswers(registry, v2);
    await registry.rollback('spam-filter', 'spam-filter@1.0.0');
    await expectAnswers(registry, v1);
    expect((await store.version('spam-filter@1.0.0'))?.sequence).toBe(5);
  });

  it('a pre-release never replaces its release, and 1.0.1001 stays below 1.1.0', async () => {
    const { registry, publish } = await world();
    const final = await release(builtin, 'spam-filter', '2.0.0', sequenceFromVersion('2.0.0'));
    const rc = await release(builtin, 'spam-filter', '2.0.0-rc.1', sequenceFromVersion('2.0.0-rc.1'));
    publish(final, rc);
    await install(registry, final);
    await expect(install(registry, rc)).rejects.toThrow(DowngradeError);
    await expectAnswers(registry, final);
    expect(sequenceFromVersion('1.0.1001')).toBeLessThan(sequenceFromVersion('1.1.0'));
  });

  it('recovers from a MAX_SAFE_INTEGER takeover once the deployment revokes the abused key', async () => {
    // The deployment once trusted a key for spam-filter that then signed a takeover release.
    const { registry, registryWith, publish, store } = await world(trustOf([rogue, ['spam-filter']]));
    const v1 = await release(builtin, 'spam-filter', '1.0.0', 10);
    const takeover = await release(rogue, 'spam-filter', '6.6.6', Number.MAX_SAFE_INTEGER);
    const v11 = await release(builtin, 'spam-filter', '1.1.0', 11);
    publish(v1, takeover, v11);
    await install(registry, v1);
    await install(registry, takeover);
    await expect(install(registry, v11)).rejects.toThrow(DowngradeError);
    await store.removeModel('spam-filter');
    await expect(install(registry, v11)).rejects.toThrow(DowngradeError);
    // The trust store drops the rogue key: its floor no longer blocks the rightful publisher.
    const recovered = registryWith(trustOf());
    expect(await store.highestSequence('spam-filter')).toBe(10);
    await install(recovered, v11);
    await expectAnswers(recovered, v11);
    // The built-in key's own floor still holds: its older release stays refused.
    await expect(install(recovered, v1)).rejects.toThrow(DowngradeError);
  });
});
