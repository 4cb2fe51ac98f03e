import 'fake-indexeddb/auto';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { BusyError, DowngradeError, InputError, IntegrityError, ModelLoadError, QuotaError, SignatureError, StorageError, ValidationError } from '../errors.ts';
import { MAX_LABELS } from '../schema-limits.ts';
import { signedCatalog } from '../../../scripts/model-pack/release.ts';
import { sequenceFromVersion } from '../../../scripts/model-pack/sequence.ts';
import { openRegistry } from './bootstrap.ts';
import { parseCatalog, releasesOf } from './catalog.ts';
import { writeBundle, type BundleSource } from './bundle.ts';
import { OriginPolicy } from './net.ts';
import { parseManifest, totalSize } from './manifest.ts';
import { ModelRegistry } from './registry.ts';
import type { ModelStore } from './model-store.ts';
import { REVOKED_REASON } from './reasons.ts';
import { configFor, evictChunks, TASK_FILE, FakeServer, freshNamedStore, freshStore, makeRelease, ORIGIN, urls, type TestRelease } from './test-helpers.ts';
import { generateKey, sign, TrustStore, trustEntryFor, type KeyFile } from './trust.ts';
import { StoreModelSource } from './store-model-source.ts';
import { GOLDEN_ITEM_TIMEOUT_MS, goldenValidator } from '../golden-gate.ts';
import { Lantern } from '../lantern.ts';
import { ABANDONED_CALL_LIMIT_MS } from '../worker-client.ts';
import { fakeWorkers, stubNavigatorLocks } from '../worker.test-helpers.ts';

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

async function world(trust = trustOf(), given?: ModelStore) {
  const store = given ?? await freshStore();
  const server = new FakeServer();
  const registryWith = (t: TrustStore) => new ModelRegistry({ store, trust: t, policy: new OriginPolicy(ORIGIN), fetch: server.fetch, backoffMs: 1, retries: 1 });
  const publish = (...releases: TestRelease[]) => releases.forEach((r) => server.add(r));
  /** Serves a signed catalog (signedCatalog) at the catalog's URL. */
  const serveCatalog = (c: { catalog: Uint8Array; signature: Uint8Array }) => {
    server.put('catalog.json', c.catalog);
    server.put('catalog.sig.json', c.signature);
  };
  return { store, server, publish, serveCatalog, registry: registryWith(trust), registryWith };
}

/** The active version of `id` is `r` and reads back verified, byte for byte. */
async function expectAnswers(registry: ModelRegistry, r: TestRelease): Promise<void> {
  const { manifest, read } = await registry.readActive(r.manifest.id);
  expect(manifest.version).toBe(r.manifest.version);
  expect([...read.files.get('onnx')!]).toEqual([...r.files.get('onnx/model.onnx')!]);
}

const bundleOf = (r: TestRelease) => new Blob([writeBundle(r.bytes, r.signatures, [...r.files].map(([path, bytes]) => ({ path, bytes })))]);

/** `r` with `edit` applied to its manifest's JSON, signed again by `key`: validly signed, whatever it now says. */
async function resigned(r: TestRelease, key: KeyFile, edit: (json: Record<string, unknown>) => void): Promise<TestRelease> {
  const json = JSON.parse(new TextDecoder().decode(r.bytes)) as Record<string, unknown>;
  edit(json);
  const bytes = new TextEncoder().encode(JSON.stringify(json));
  return { ...r, bytes, signatures: { signatures: [await sign(bytes, key)] } };
}

/** A validly signed release whose chunks are all right but whose onnx file hash is not: a publisher's mistake. */
async function inconsistent(key: KeyFile, id: string, version: string, sequence: number, onnx: Uint8Array): Promise<TestRelease> {
  const edited = await resigned(await makeRelease(key, { id, version, sequence }, onnx), key, (json) => {
    (json.files as { role: string; sha256: string }[]).find((f) => f.role === 'onnx')!.sha256 = 'f'.repeat(64);
  });
  return { ...edited, manifest: parseManifest(edited.bytes) };
}

const allChunks = (r: TestRelease) => r.manifest.files.flatMap((f) => f.chunks);

const install = (registry: ModelRegistry, r: TestRelease) => registry.install(urls(r.manifest.version, r.manifest.id));

/** A world whose built-in key's spam-filter 1.0.0 is published and installed: what most attacks start from. */
async function withInstalledV1(trust = trustOf()) {
  const w = await world(trust);
  const v1 = await release(builtin, 'spam-filter', '1.0.0', 1);
  w.publish(v1);
  await install(w.registry, v1);
  return { ...w, v1 };
}
const errorOf = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e);

/** A catalog entry for `r`, at the paths FakeServer serves it from. */
const entryOf = (r: TestRelease, size = totalSize(r.manifest)) => ({
  id: r.manifest.id, version: r.manifest.version, sequence: r.manifest.sequence,
  manifest: `${r.manifest.id}/${r.manifest.version}/manifest.json`, signature: `${r.manifest.id}/${r.manifest.version}/manifest.sig.json`, size,
});

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
    const { registry, v1 } = await withInstalledV1();
    const takeover = await release(acme, 'spam-filter', '2.0.0', 2);
    await expect(registry.installBundle(bundleOf(takeover))).rejects.toThrow(SignatureError);
    await expectAnswers(registry, v1);
  });
});

describe('attack: a trusted publisher signs a manifest built to exhaust the device', () => {
  /** `edit` applied to a valid manifest of spam-filter 2.0.0, re-signed by the rightful key. */
  const signedEdit = async (edit: (json: Record<string, unknown>) => void) => resigned(await release(builtin, 'spam-filter', '2.0.0', 2), builtin, edit);

  it.each([
    ['100,000 labels', (json: Record<string, unknown>) => { json.labels = Array.from({ length: MAX_LABELS + 1 }, (_, i) => `l${i}`); }],
    ['a 10 MB title', (json: Record<string, unknown>) => { json.title = 'x'.repeat(10_000_000); }],
    ['a file of a million one-byte chunks', (json: Record<string, unknown>) => {
      const [file] = json.files as Record<string, unknown>[];
      Object.assign(file!, { size: 1_000_000, chunkSize: 1, chunks: new Array<string>(1_000_000).fill('0'.repeat(64)) });
    }],
  ])('refuses %s with a ValidationError, over the network and as a bundle; the active version answers', async (_name, edit) => {
    const { registry, publish } = await world();
    const v1 = await release(builtin, 'spam-filter', '1.0.0', 1);
    const hostile = await signedEdit(edit);
    publish(v1, hostile);
    await install(registry, v1);
    // Refused by the byte limit before parsing (the big ones) or by the schema: never parsed whole.
    await expect(install(registry, hostile)).rejects.toThrow(ValidationError);
    await expect(registry.installBundle(bundleOf(hostile))).rejects.toThrow(ValidationError);
    await expectAnswers(registry, v1);
  });

  it('checks one signature per key: a file repeating the trusted key 400 times costs one verification', async () => {
    const { registry, publish } = await world();
    const v1 = await release(builtin, 'spam-filter', '1.0.0', 1);
    const v2 = await release(builtin, 'spam-filter', '1.1.0', 2);
    const padded = { ...v2, signatures: { signatures: Array.from({ length: 400 }, () => v2.signatures.signatures[0]!) } };
    publish(v1, padded);
    await install(registry, v1);
    const verify = vi.spyOn(globalThis.crypto.subtle, 'verify');
    try {
      await install(registry, padded);
      expect(verify).toHaveBeenCalledTimes(1);
    } finally {
      verify.mockRestore();
    }
    await expectAnswers(registry, padded);
  });

  it('the first signature of a key is the one that counts: a bogus one before the real one is refused as altered', async () => {
    const { registry, publish } = await world();
    const v1 = await release(builtin, 'spam-filter', '1.0.0', 1);
    const v2 = await release(builtin, 'spam-filter', '1.1.0', 2);
    const [real] = v2.signatures.signatures;
    const shadowed = { ...v2, signatures: { signatures: [{ ...real!, sig: v1.signatures.signatures[0]!.sig }, real!] } };
    publish(v1, shadowed);
    await install(registry, v1);
    const error = await errorOf(install(registry, shadowed));
    expect(error).toBeInstanceOf(SignatureError);
    expect((error as SignatureError).message).toMatch(/altered after signing/);
    await expectAnswers(registry, v1);
  });

  it('refuses a bundle declaring a 3 GB manifest before reading it; the active version answers', async () => {
    const { registry, v1 } = await withInstalledV1();
    // A received .lantern file: a real header, then a manifest length no device could hold.
    const real = writeBundle(v1.bytes, v1.signatures, []);
    const headerLength = new DataView(real.buffer).getUint32(8, true);
    const header = JSON.parse(new TextDecoder().decode(real.subarray(12, 12 + headerLength))) as Record<string, unknown>;
    const hostileHeader = new TextEncoder().encode(JSON.stringify({ ...header, manifestLength: 3_000_000_000 }));
    const start = new Uint8Array(12 + hostileHeader.length);
    start.set(real.subarray(0, 8));
    new DataView(start.buffer).setUint32(8, hostileHeader.length, true);
    start.set(hostileHeader, 12);
    let largestRead = 0;
    const bundle = {
      size: start.length + 3_000_000_000,
      slice: (from: number, to: number) => {
        largestRead = Math.max(largestRead, to - from);
        return { arrayBuffer: async () => start.slice(from, Math.min(to, start.length)).buffer };
      },
    };
    const error = await errorOf(registry.installBundle(bundle));
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).message).toMatch(/manifest is too large \(3000000000 bytes/);
    expect(largestRead).toBeLessThan(64 * 1024);
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

describe('attack: a release signed without an expiry date', () => {
  it('is refused over the network and as a bundle (it could be served forever); the active version answers', async () => {
    const { registry, publish } = await world();
    const v1 = await release(builtin, 'spam-filter', '1.0.0', 1);
    const timeless = await resigned(await release(builtin, 'spam-filter', '2.0.0', 2), builtin, (json) => {
      delete json.expiresAt;
    });
    publish(v1, timeless);
    await install(registry, v1);
    const error = await errorOf(install(registry, timeless));
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).message).toMatch(/has no expiry date/);
    await expect(registry.installBundle(bundleOf(timeless))).rejects.toThrow(ValidationError);
    await expectAnswers(registry, v1);
  });
});

describe('attack: an expiry so far away it never comes (a careless --expires 9999-12-31)', () => {
  it('refuses a release valid for more than two years after its creation, over the network and as a bundle; the active version answers', async () => {
    const { registry, publish } = await world();
    const v1 = await release(builtin, 'spam-filter', '1.0.0', 1);
    const forever = await resigned(await release(builtin, 'spam-filter', '2.0.0', 2), builtin, (json) => {
      json.expiresAt = '9999-12-31T00:00:00.000Z';
    });
    publish(v1, forever);
    await install(registry, v1);
    const error = await errorOf(install(registry, forever));
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).message).toMatch(/until 9999-12-31, more than 731 days after it was made/);
    await expect(registry.installBundle(bundleOf(forever))).rejects.toThrow(ValidationError);
    await expectAnswers(registry, v1);
  });

  it('refuses a catalog valid for more than a year, before recording it as seen; the installed model answers', async () => {
    const { registry, serveCatalog, v1 } = await withInstalledV1();
    serveCatalog(await signedCatalog([], { keys: [builtin], previousVersion: 2e10, expiresAt: '9999-12-31T00:00:00.000Z' }));
    await expect(registry.catalog(`${ORIGIN}/catalog.json`)).rejects.toThrow(/more than 366 days after it was made/);
    // Not recorded: the publisher's corrected catalog, at a lower version, is accepted.
    serveCatalog(await signedCatalog([], { keys: [builtin], previousVersion: 10 }));
    await expect(registry.catalog(`${ORIGIN}/catalog.json`)).resolves.toEqual([]);
    await expectAnswers(registry, v1);
  });
});

describe('attack: a replay after a key rotation', () => {
  /** A release signed by each of `keys`, in that order (the signature file is not itself signed: a mirror may reorder it). */
  async function signedBy(keys: KeyFile[], version: string, sequence: number): Promise<TestRelease> {
    const r = await release(keys[0]!, 'spam-filter', version, sequence);
    return { ...r, signatures: { signatures: await Promise.all(keys.map((k) => sign(r.bytes, k))) } };
  }

  it('the new key inherits the old one\'s floor: once the old key is removed, a replayed older release is refused', async () => {
    // README "Rotate a key": the new key joins with the same scope, releases carry both signatures.
    const { registry, registryWith, publish } = await world(trustOf([rogue, ['spam-filter']]));
    const v1 = await signedBy([builtin, rogue], '1.0.0', 1);
    const v2 = await signedBy([builtin, rogue], '1.1.0', 2);
    const v3 = await signedBy([builtin, rogue], '1.2.0', 3);
    publish(v1, v2, v3);
    for (const r of [v1, v2, v3]) await install(registry, r);
    // The rotation ends: the old key leaves the trust store. v3 is still vouched for by the new one.
    const rotated = new TrustStore({ keys: [trustEntryFor(rogue, ['spam-filter'])] });
    const after = registryWith(rotated);
    await after.applyTrust(rotated);
    await expectAnswers(after, v3);
    await expect(install(after, v1)).rejects.toThrow(DowngradeError);
    await expectAnswers(after, v3);
  });
});

describe('attack: a failed install must not delete what installed versions use', () => {
  it('a release whose file hash disagrees with its valid, shared chunks is refused and deletes nothing (same model)', async () => {
    const { registry, publish, store } = await world();
    const v1 = await release(builtin, 'spam-filter', '1.0.0', 1);
    const broken = await inconsistent(builtin, 'spam-filter', '1.1.0', 2, v1.files.get('onnx/model.onnx')!);
    publish(v1, broken);
    await install(registry, v1);
    await expect(install(registry, broken)).rejects.toThrow(IntegrityError);
    for (const sha of allChunks(v1)) expect(await store.hasChunk(sha)).toBe(true);
    expect((await store.version('spam-filter@1.1.0'))?.status).toBe('rejected');
    await expectAnswers(registry, v1);
  });

  it('the same mistake in another model (another publisher) leaves the first model whole', async () => {
    const { registry, publish, store } = await world();
    const spam = await release(builtin, 'spam-filter', '1.0.0', 1);
    const copy = await inconsistent(acme, 'acme/copy', '1.0.0', 1, spam.files.get('onnx/model.onnx')!);
    publish(spam, copy);
    await install(registry, spam);
    await expect(install(registry, copy)).rejects.toThrow(IntegrityError);
    for (const sha of allChunks(spam)) expect(await store.hasChunk(sha)).toBe(true);
    await expectAnswers(registry, spam);
    // A later garbage collection (any activation) still keeps every chunk the installed model uses.
    const other = await release(acme, 'acme/other', '1.0.0', 1, 77);
    publish(other);
    await install(registry, other);
    await expectAnswers(registry, spam);
  });

  it('a sideloaded bundle with that mistake is refused before anything is written', async () => {
    const { registry, store, v1 } = await withInstalledV1();
    const before = await store.chunkBytes();
    const onnx = v1.files.get('onnx/model.onnx')!.map((b, i) => (i < 4096 ? b : b ^ 0x5a));
    await expect(registry.installBundle(bundleOf(await inconsistent(builtin, 'spam-filter', '1.1.0', 2, onnx)))).rejects.toThrow(IntegrityError);
    expect(await store.chunkBytes()).toBe(before);
    expect(await store.version('spam-filter@1.1.0')).toBeUndefined();
    await expectAnswers(registry, v1);
  });

  it('quarantine deletes only the damaged chunk (useless to every version), never a valid one another version or model references', async () => {
    const { registry, publish, store } = await world();
    const base = await release(builtin, 'spam-filter', '1.0.0', 1);
    // 1.1.0 shares its first onnx chunk with 1.0.0; acme/copy shares the whole onnx file.
    const onnx = base.files.get('onnx/model.onnx')!.map((b, i) => (i < 4096 ? b : b ^ 0x33));
    const next = await makeRelease(builtin, { id: 'spam-filter', version: '1.1.0', sequence: 2 }, onnx);
    const copy = await makeRelease(acme, { id: 'acme/copy', version: '1.0.0', sequence: 1 }, onnx);
    publish(base, next, copy);
    await install(registry, base);
    await install(registry, next);
    await install(registry, copy);
    const [shared, , damaged] = next.manifest.files[0]!.chunks;
    const bytes = new Uint8Array((await store.getChunk(damaged!))!);
    bytes[0]! ^= 1;
    await store.putChunk(damaged!, bytes.buffer);
    await expect(registry.readActive('spam-filter')).rejects.toThrow(IntegrityError);
    await expectAnswers(registry, base);
    // The damaged chunk fails its own hash, so it is gone for acme/copy too (which fails on its own read);
    // the valid chunk 1.0.0 shares stays.
    expect(await store.hasChunk(damaged!)).toBe(false);
    expect(await store.hasChunk(shared!)).toBe(true);
    await expect(registry.readActive('acme/copy')).rejects.toThrow(IntegrityError);
    expect(await store.hasChunk(shared!)).toBe(true);
    await expectAnswers(registry, base);
  });
});

describe('attack: a revoked key with its version installed', () => {
  it('disables the version at once, falls back to a trusted one, and never rolls back to it', async () => {
    const { registry, publish, store } = await world(trustOf([rogue, ['spam-filter']]));
    const v1 = await release(builtin, 'spam-filter', '1.0.0', 1);
    const bad = await release(rogue, 'spam-filter', '2.0.0', 2);
    publish(v1, bad);
    await install(registry, v1);
    await install(registry, bad);
    await expectAnswers(registry, bad);
    // The deployment revokes the rogue key; the app re-checks what is installed.
    await registry.applyTrust(trustOf());
    expect((await store.version('spam-filter@2.0.0'))?.status).toBe('revoked');
    expect(registry.notices).toEqual([{ kind: 'revoked', id: 'spam-filter', version: '2.0.0', fallbackVersion: '1.0.0', reason: REVOKED_REASON }]);
    await expectAnswers(registry, v1);
    await expect(registry.rollback('spam-filter', 'spam-filter@2.0.0')).rejects.toThrow(StorageError);
    await expect(store.activate('spam-filter@2.0.0')).rejects.toThrow(StorageError);
    await expect(install(registry, bad)).rejects.toThrow(SignatureError);
    await expectAnswers(registry, v1);
  });

  it('narrowing a key\'s scope revokes what it signed outside it; trusting it again restores the version', async () => {
    const { registry, publish, store } = await world(trustOf([rogue, ['spam-filter', 'rogue/']]));
    const v1 = await release(builtin, 'spam-filter', '1.0.0', 1);
    const theirs = await release(rogue, 'spam-filter', '1.5.0', 2);
    const own = await release(rogue, 'rogue/tool', '1.0.0', 1);
    publish(v1, theirs, own);
    await install(registry, v1);
    await install(registry, theirs);
    await install(registry, own);
    await registry.applyTrust(trustOf([rogue, ['rogue/']]));
    await expectAnswers(registry, v1);
    await expectAnswers(registry, own);
    expect((await store.version('spam-filter@1.5.0'))?.status).toBe('revoked');
    await registry.applyTrust(trustOf([rogue, ['spam-filter', 'rogue/']]));
    expect((await store.version('spam-filter@1.5.0'))?.status).toBe('ready');
    await expectAnswers(registry, v1);
  });

  it('a key revoked while its bundle is being read (after the signature check, before the install is recorded): the release is refused, recorded as revoked, and the active version answers', async () => {
    const { registry, store, v1 } = await withInstalledV1(trustOf([rogue, ['spam-filter']]));
    const blob = bundleOf(await release(rogue, 'spam-filter', '1.1.0', 2));
    let reads = 0;
    // The revocation (an update check, or another window's) lands while the bundle's files are hashed.
    const source: BundleSource = {
      size: blob.size,
      slice: (start, end) => ({
        arrayBuffer: async () => {
          if (++reads === 4) await registry.applyTrust(trustOf());
          return blob.slice(start, end).arrayBuffer();
        },
      }),
    };
    await expect(registry.installBundle(source)).rejects.toThrow(SignatureError);
    expect(reads).toBeGreaterThan(4);
    expect((await store.version('spam-filter@1.1.0'))?.status).toBe('revoked');
    await expectAnswers(registry, v1);
  });

  it('a release downloaded but not yet through its golden set, revoked then trusted again, still has to pass it: it fails it, and the active version answers', async () => {
    const store = await freshStore();
    const server = new FakeServer();
    const v1 = await release(builtin, 'spam-filter', '1.0.0', 1);
    const golden = { threshold: 1, items: [{ input: { kind: 'text' as const, text: 'golden' }, label: 'spam' }] };
    const bad = await makeRelease(builtin, { id: 'spam-filter', version: '1.1.0', sequence: 2, validation: golden });
    server.add(v1);
    server.add(bad);
    let busy = true;
    let gateRuns = 0;
    const registry = new ModelRegistry({
      store, trust: trustOf(), policy: new OriginPolicy(ORIGIN), fetch: server.fetch, backoffMs: 1, retries: 1,
      validate: async () => {
        if (busy) throw new BusyError('The runtime is busy.');
        gateRuns++;
        return { total: 1, correct: 0, failed: 0 };
      },
    });
    await install(registry, v1);
    // Downloaded whole, but the runtime was too busy to judge it: no verdict, not activated.
    await expect(install(registry, bad)).rejects.toThrow(BusyError);
    busy = false;
    await registry.applyTrust(new TrustStore({ keys: [trustEntryFor(builtin, ['elsewhere'])] }));
    await registry.applyTrust(trustOf());
    expect((await store.version('spam-filter@1.1.0'))?.status).toBe('downloading');
    await expect(install(registry, bad)).rejects.toThrow(ValidationError);
    expect(gateRuns).toBe(1);
    await expectAnswers(registry, v1);
  });

  it('a model whose only version is revoked has no active version and says so', async () => {
    const { registry, publish, store } = await world(trustOf([rogue, ['rogue/']]));
    const only = await release(rogue, 'rogue/tool', '1.0.0', 1);
    publish(only);
    await install(registry, only);
    await registry.applyTrust(trustOf());
    expect(await store.pointer('rogue/tool')).toBeUndefined();
    expect(registry.notices.map((n) => [n.kind, n.id, n.fallbackVersion])).toEqual([['revoked', 'rogue/tool', undefined]]);
    await expect(registry.readActive('rogue/tool')).rejects.toThrow(/no installed model/);
  });

  it('a deployment\'s mistake is undone by its fix: the only version of a model, revoked, then trusted again after other models changed, answers again', async () => {
    const { registry, publish } = await world(trustOf([rogue, ['rogue/']]));
    const only = await release(rogue, 'rogue/tool', '1.0.0', 1);
    const [a1, a2] = [await release(acme, 'acme/spam', '1.0.0', 1), await release(acme, 'acme/spam', '2.0.0', 2)];
    publish(only, a1, a2);
    await install(registry, only);
    await install(registry, a1);
    await registry.applyTrust(trustOf());
    await expect(registry.readActive('rogue/tool')).rejects.toThrow(/no installed model/);
    // Another model's update collects garbage across the store: the revoked version must survive it.
    await install(registry, a2);
    await registry.applyTrust(trustOf([rogue, ['rogue/']]));
    await expectAnswers(registry, only);
    await expectAnswers(registry, a2);
  });
});

describe('attack: one stolen key where a model needs two signatures (TUF threshold)', () => {
  let acme2: KeyFile;
  beforeAll(async () => {
    acme2 = await generateKey('Acme, second maintainer');
  });
  /** Two Acme maintainers' keys for `acme/`, and a release there needs `signatures` of them. */
  const twoKeys = (signatures = 2) => new TrustStore({
    keys: [trustEntryFor(builtin, ['spam-filter']), trustEntryFor(acme, ['acme/']), trustEntryFor(acme2, ['acme/'])],
    thresholds: [{ scope: ['acme/'], signatures }],
  });
  /** `r` with `key`'s signature over the same bytes added: the second maintainer's review. */
  const countersigned = async (r: TestRelease, key: KeyFile): Promise<TestRelease> => ({ ...r, signatures: { signatures: [...r.signatures.signatures, await sign(r.bytes, key)] } });

  it('refuses a release signed by one key, by URL and as a bundle, without raising the floor; a countersigned one installs', async () => {
    const { registry, publish, store } = await world(twoKeys());
    const v1 = await countersigned(await release(acme, 'acme/spam', '1.0.0', 1), acme2);
    const stolen = await release(acme, 'acme/spam', '9.9.9', Number.MAX_SAFE_INTEGER);
    const v2 = await countersigned(await release(acme2, 'acme/spam', '2.0.0', 2), acme);
    publish(v1, stolen, v2);
    await install(registry, v1);
    const error = await errorOf(install(registry, stolen));
    expect(error).toBeInstanceOf(SignatureError);
    expect((error as SignatureError).details).toEqual({ id: 'acme/spam', required: 2, signed: 1 });
    expect((error as SignatureError).message).toMatch(/needs signatures from 2 different trusted keys, and this has 1 \(Acme\)/);
    await expect(registry.installBundle(bundleOf(stolen))).rejects.toThrow(SignatureError);
    await expectAnswers(registry, v1);
    expect(await store.highestSequence('acme/spam')).toBe(1);
    await install(registry, v2);
    await expectAnswers(registry, v2);
  });

  it('counts a key listed under two key ids once', async () => {
    const twice = new TrustStore({
      keys: [trustEntryFor(acme, ['acme/']), { ...trustEntryFor(acme, ['acme/']), keyId: 'acme-again' }, trustEntryFor(acme2, ['acme/'])],
      thresholds: [{ scope: ['acme/'], signatures: 2 }],
    });
    const { registry, publish } = await world(twice);
    const v1 = await countersigned(await release(acme, 'acme/spam', '1.0.0', 1), acme2);
    const one = await release(acme, 'acme/spam', '2.0.0', 2);
    const sameKeyTwice = { ...one, signatures: { signatures: [...one.signatures.signatures, { ...await sign(one.bytes, acme), keyId: 'acme-again' }] } };
    publish(v1, sameKeyTwice);
    await install(registry, v1);
    const error = await errorOf(install(registry, sameKeyTwice));
    expect(error).toBeInstanceOf(SignatureError);
    expect((error as SignatureError).details).toEqual({ id: 'acme/spam', required: 2, signed: 1 });
    await expectAnswers(registry, v1);
  });

  it('refuses a catalog signed by one key that would raise its version floor (fast-forward), even one listing nothing; the countersigned one is taken', async () => {
    const { registry, publish, serveCatalog } = await world(twoKeys());
    const v1 = await countersigned(await release(acme, 'acme/spam', '1.0.0', 1), acme2);
    publish(v1);
    await install(registry, v1);
    serveCatalog(await signedCatalog([entryOf(v1)], { keys: [acme], previousVersion: 1e12 }));
    await expect(registry.catalog(`${ORIGIN}/catalog.json`)).rejects.toThrow(SignatureError);
    // Listing nothing under acme/ does not make one key enough: its scope is under the threshold.
    serveCatalog(await signedCatalog([], { keys: [acme], previousVersion: 1e12 }));
    const empty = await errorOf(registry.catalog(`${ORIGIN}/catalog.json`));
    expect(empty).toBeInstanceOf(SignatureError);
    expect((empty as SignatureError).details).toEqual({ id: 'acme/', required: 2, signed: 1 });
    serveCatalog(await signedCatalog([entryOf(v1)], { keys: [acme, acme2], previousVersion: 10 }));
    expect((await registry.catalog(`${ORIGIN}/catalog.json`)).map((r) => r.version)).toEqual(['1.0.0']);
    await expectAnswers(registry, v1);
  });

  /** A countersigned v1, then a v2 one key signed, both installed under a threshold of 1 (v2 answers). */
  async function oneKeyV2Installed() {
    const w = await world(twoKeys(1));
    const v1 = await countersigned(await release(acme, 'acme/spam', '1.0.0', 1), acme2);
    const v2 = await release(acme, 'acme/spam', '2.0.0', 2);
    w.publish(v1, v2);
    await install(w.registry, v1);
    await install(w.registry, v2);
    await expectAnswers(w.registry, v2);
    return { ...w, v1, v2 };
  }

  it('raising the threshold disables what one key signed and falls back to a countersigned version; lowering it restores it', async () => {
    const { registry, store, v1 } = await oneKeyV2Installed();
    await registry.applyTrust(twoKeys(2));
    expect((await store.version('acme/spam@2.0.0'))?.status).toBe('revoked');
    expect(registry.notices).toEqual([{ kind: 'revoked', id: 'acme/spam', version: '2.0.0', fallbackVersion: '1.0.0', reason: REVOKED_REASON }]);
    await expectAnswers(registry, v1);
    await registry.applyTrust(twoKeys(1));
    expect((await store.version('acme/spam@2.0.0'))?.status).toBe('ready');
    await expectAnswers(registry, v1);
  });

  it('a version disabled by a raised threshold comes back when the same release, countersigned, is installed again', async () => {
    const { registry, publish, store, v1, v2 } = await oneKeyV2Installed();
    await registry.applyTrust(twoKeys(2));
    expect((await store.version('acme/spam@2.0.0'))?.status).toBe('revoked');
    await expectAnswers(registry, v1);
    // The second maintainer countersigns the very same release; nothing else is published.
    publish(await countersigned(v2, acme2));
    await install(registry, v2);
    expect(await store.version('acme/spam@2.0.0')).toMatchObject({ status: 'ready', keyIds: [acme.keyId, acme2.keyId] });
    await expectAnswers(registry, v2);
  });

  it('takes a trust store whose threshold its keys cannot reach (a revocation must never be held back), and installs nothing there', async () => {
    const { registry, publish, store } = await world(twoKeys(1));
    const spam = await release(builtin, 'spam-filter', '1.0.0', 1);
    const v1 = await release(acme, 'acme/spam', '1.0.0', 1);
    const v2 = await release(acme, 'acme/spam', '2.0.0', 2);
    publish(spam, v1, v2);
    await install(registry, spam);
    await install(registry, v1);
    // acme2 is revoked, but the threshold of 2 stays: one key is left for acme/.
    const unreachable = TrustStore.parse({ keys: [trustEntryFor(builtin, ['spam-filter']), trustEntryFor(acme, ['acme/'])], thresholds: [{ scope: ['acme/'], signatures: 2 }] });
    await registry.applyTrust(unreachable);
    expect((await store.version('acme/spam@1.0.0'))?.status).toBe('revoked');
    const error = await errorOf(install(registry, v2));
    expect(error).toBeInstanceOf(SignatureError);
    expect((error as SignatureError).details).toEqual({ id: 'acme/spam', required: 2, signed: 1 });
    expect(await store.pointer('acme/spam')).toBeUndefined();
    await expectAnswers(registry, spam);
  });

  it('leaves ids outside the threshold\'s scope at one signature', async () => {
    const { registry, publish } = await world(twoKeys());
    const v1 = await release(builtin, 'spam-filter', '1.0.0', 1);
    publish(v1);
    await install(registry, v1);
    await expectAnswers(registry, v1);
  });
});

describe('attack: a stale trust store served again (TUF root rollback)', () => {
  const json = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
  const trustFile = (version: number | undefined, ...extra: [KeyFile, string[]][]) => json({
    ...(version !== undefined ? { version } : {}),
    keys: [trustEntryFor(builtin, ['spam-filter']), ...extra.map(([k, scope]) => trustEntryFor(k, scope))],
  });
  let db = 0;

  it('refuses trust store v1, which still lists a revoked key, once v2 dropped it; the revoked version stays revoked and the active one answers', async () => {
    const server = new FakeServer();
    server.put('registry-config.json', json({ catalogUrl: 'models/catalog.json', allowedOrigins: [] }));
    server.put('trust-store.json', trustFile(1, [rogue, ['spam-filter']]));
    const v1 = await release(builtin, 'spam-filter', '1.0.0', 1);
    const bad = await release(rogue, 'spam-filter', '2.0.0', 2);
    server.add(v1);
    server.add(bad);
    const dbName = `attacks-trust-${db++}`;
    const start = () => openRegistry(`${ORIGIN}/`, { fetch: server.fetch, dbName, installBuiltins: false });
    const opened = await start();
    const { registry } = opened;
    const { store } = registry;
    await install(registry, v1);
    await install(registry, bad);
    await expectAnswers(registry, bad);

    // The deployment revokes the rogue key in trust store v2.
    server.put('trust-store.json', trustFile(2));
    await opened.refreshTrust();
    expect((await store.version('spam-filter@2.0.0'))?.status).toBe('revoked');
    await expectAnswers(registry, v1);

    // A cache or an attacker serves the old v1 again; then v2 forked to list the key again; then
    // an unversioned file listing it. Each is refused, typed, and changes nothing.
    for (const stale of [trustFile(1, [rogue, ['spam-filter']]), trustFile(2, [rogue, ['spam-filter']]), trustFile(undefined, [rogue, ['spam-filter']])]) {
      server.put('trust-store.json', stale);
      await expect(opened.refreshTrust()).rejects.toThrow(DowngradeError);
      expect((await store.version('spam-filter@2.0.0'))?.status).toBe('revoked');
      await expectAnswers(registry, v1);
      await expect(registry.rollback('spam-filter', 'spam-filter@2.0.0')).rejects.toThrow(StorageError);
      await expect(install(registry, bad)).rejects.toThrow(SignatureError);
    }
    store.close();

    // A new start served the stale file: it opens on v2 (saved), reports the refusal, and the
    // revoked version stays revoked.
    server.put('trust-store.json', trustFile(1, [rogue, ['spam-filter']]));
    const next = await start();
    expect((await next.checked).map((e) => e.constructor)).toEqual([DowngradeError]);
    expect((await next.checked)[0]?.message).toMatch(/older than one this device already accepted \(version 1, last 2\)/);
    expect((await next.registry.store.version('spam-filter@2.0.0'))?.status).toBe('revoked');
    await expectAnswers(next.registry, v1);

    // The floor does not freeze the deployment: its next version is taken.
    server.put('trust-store.json', trustFile(3, [acme, ['acme/']]));
    await next.refreshTrust();
    expect((await next.registry.store.version('spam-filter@2.0.0'))?.status).toBe('revoked');
    await expectAnswers(next.registry, v1);
    next.registry.store.close();
  });
});

describe('attack: catalogs that freeze, replay or mix and match', () => {
  const CATALOG = `${ORIGIN}/catalog.json`;

  async function catalogWorld(trust = trustOf()) {
    const w = await world(trust);
    const v1 = await release(builtin, 'spam-filter', '1.0.0', 1);
    const v2 = await release(builtin, 'spam-filter', '1.1.0', 2);
    w.publish(v1, v2);
    await install(w.registry, v1);
    return { ...w, v1, v2, serve: w.serveCatalog };
  }

  it('refuses an expired catalog and says so; the installed model keeps answering', async () => {
    const { registry, serve, v1, v2 } = await catalogWorld();
    serve(await signedCatalog([entryOf(v1), entryOf(v2)], { keys: [builtin], now: new Date('2020-01-01T00:00:00Z'), expiresAt: '2020-02-01T00:00:00.000Z' }));
    const error = await errorOf(registry.catalog(CATALOG));
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as Error).message).toMatch(/expired on 2020-02-01.*Installed models keep working/);
    await expectAnswers(registry, v1);
  });

  it('refuses a replayed older catalog (hiding an update) after a newer one was seen', async () => {
    const { registry, serve, v1, v2 } = await catalogWorld();
    const old = await signedCatalog([entryOf(v1)], { keys: [builtin], previousVersion: 10 });
    const current = await signedCatalog([entryOf(v1), entryOf(v2)], { keys: [builtin], previousVersion: 1e10 });
    serve(current);
    expect((await registry.catalog(CATALOG)).map((r) => r.version)).toEqual(['1.0.0', '1.1.0']);
    serve(old);
    await expect(registry.catalog(CATALOG)).rejects.toThrow(DowngradeError);
    // The same version with other contents is a replay too; the identical catalog is fine.
    serve(await signedCatalog([entryOf(v1)], { keys: [builtin], previousVersion: 1e10 }));
    await expect(registry.catalog(CATALOG)).rejects.toThrow(DowngradeError);
    serve(current);
    await expect(registry.catalog(CATALOG)).resolves.toHaveLength(2);
    await expectAnswers(registry, v1);
  });

  it('refuses an unsigned catalog, one altered after signing, and one listing ids outside its key\'s scope', async () => {
    const { registry, serve, v1, v2 } = await catalogWorld();
    const good = await signedCatalog([entryOf(v1), entryOf(v2)], { keys: [builtin] });
    serve({ catalog: good.catalog, signature: new TextEncoder().encode('{"signatures":[]}') });
    await expect(registry.catalog(CATALOG)).rejects.toThrow(SignatureError);
    serve({ catalog: new TextEncoder().encode(new TextDecoder().decode(good.catalog).replace('"1.1.0"', '"1.1.1"')), signature: good.signature });
    await expect(registry.catalog(CATALOG)).rejects.toThrow(/altered after signing/);
    serve(await signedCatalog([entryOf(v1), entryOf(v2)], { keys: [acme] }));
    await expect(registry.catalog(CATALOG)).rejects.toThrow(SignatureError);
    await expectAnswers(registry, v1);
  });

  it('refuses a signed catalog whose entry is no URL with a ValidationError, before recording it as seen', async () => {
    const { registry, serve, v1, v2 } = await catalogWorld();
    const broken = await signedCatalog([{ ...entryOf(v2), manifest: 'http://[' }], { keys: [builtin], previousVersion: 1e10 });
    serve(broken);
    const error = await errorOf(registry.catalog(CATALOG));
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as Error).message).toMatch(/expected a URL or a path/);
    // Not recorded as seen: the publisher's corrected catalog at an earlier version is accepted.
    serve(await signedCatalog([entryOf(v1), entryOf(v2)], { keys: [builtin], previousVersion: 10 }));
    await expect(registry.catalog(CATALOG)).resolves.toHaveLength(2);
    await expectAnswers(registry, v1);
  });

  it('refuses another publisher\'s honestly signed catalog served at this URL (mix and match); the rightful one still updates', async () => {
    const { registry, serve, v1, v2 } = await catalogWorld();
    const rightful = await signedCatalog([entryOf(v2)], { keys: [builtin], previousVersion: 10 });
    serve(rightful);
    await registry.catalog(CATALOG);
    // A mirror of the deployment's catalog URL serves Acme's own catalog, signed later.
    const acmeOwn = await release(acme, 'acme/vision', '1.0.0', 1);
    serve(await signedCatalog([entryOf(acmeOwn)], { keys: [acme], previousVersion: 1e10 }));
    const error = await errorOf(registry.catalog(CATALOG));
    expect(error).toBeInstanceOf(SignatureError);
    expect((error as SignatureError).details).toEqual({ url: CATALOG, keyId: acme.keyId });
    serve(rightful);
    await expect(registry.catalog(CATALOG)).resolves.toMatchObject([{ id: 'spam-filter', version: '1.1.0' }]);
    await expectAnswers(registry, v1);
  });

  it('refuses an empty catalog a narrow key signs at the top version; had it come first, revoking that key frees the URL', async () => {
    const empty = await signedCatalog([], { keys: [acme], previousVersion: Number.MAX_SAFE_INTEGER - 1 });
    const following = await catalogWorld();
    const rightful = await signedCatalog([entryOf(following.v2)], { keys: [builtin] });
    following.serve(rightful);
    await following.registry.catalog(CATALOG);
    following.serve(empty);
    await expect(following.registry.catalog(CATALOG)).rejects.toThrow(SignatureError);
    following.serve(rightful);
    await expect(following.registry.catalog(CATALOG)).resolves.toHaveLength(1);
    await expectAnswers(following.registry, following.v1);

    // A device whose first catalog from this URL was the empty one follows Acme there…
    const fooled = await catalogWorld();
    fooled.serve(empty);
    await expect(fooled.registry.catalog(CATALOG)).resolves.toEqual([]);
    fooled.serve(rightful);
    await expect(fooled.registry.catalog(CATALOG)).rejects.toThrow(SignatureError);
    // …until the deployment stops trusting Acme's key: then nothing it signed binds, whatever its version.
    const withoutAcme = fooled.registryWith(new TrustStore({ keys: [trustEntryFor(builtin, ['spam-filter'])] }));
    await expect(withoutAcme.catalog(CATALOG)).resolves.toMatchObject([{ id: 'spam-filter', version: '1.1.0' }]);
    await expectAnswers(withoutAcme, fooled.v1);
  });

  it('a rotation key, stolen, freezes the URL with an empty catalog; once the deployment narrows it away from the model, the rightful publisher\'s catalog is taken again', async () => {
    const rotation = await generateKey('Built-in models, rotation key');
    const both = trustOf([rotation, ['spam-filter']]);
    const { registry, registryWith, serve, v1, v2 } = await catalogWorld(both);
    serve(await signedCatalog([entryOf(v1)], { keys: [builtin, rotation], previousVersion: 1e10 }));
    await registry.catalog(CATALOG);
    serve(await signedCatalog([], { keys: [rotation], previousVersion: Number.MAX_SAFE_INTEGER - 1 }));
    await expect(registry.catalog(CATALOG)).resolves.toEqual([]);
    serve(await signedCatalog([entryOf(v1), entryOf(v2)], { keys: [builtin], previousVersion: 2e10 }));
    await expect(registry.catalog(CATALOG)).rejects.toThrow(SignatureError);
    await expectAnswers(registry, v1);
    // Narrowed to another model, the stolen key no longer speaks for spam-filter, not even by an empty catalog.
    const narrowed = registryWith(trustOf([rotation, ['rogue/']]));
    await expect(narrowed.catalog(CATALOG)).resolves.toMatchObject([{ version: '1.0.0' }, { version: '1.1.0' }]);
    await expectAnswers(narrowed, v1);
  });

  it('follows a publisher through a key rotation: both keys, then the new one alone', async () => {
    const { registry, registryWith, serve, v1, v2 } = await catalogWorld();
    serve(await signedCatalog([entryOf(v1)], { keys: [builtin], previousVersion: 1e10 }));
    await registry.catalog(CATALOG);
    const rotating = trustOf([rogue, ['spam-filter']]);
    serve(await signedCatalog([entryOf(v1), entryOf(v2)], { keys: [builtin, rogue], previousVersion: 2e10 }));
    await expect(registryWith(rotating).catalog(CATALOG)).resolves.toHaveLength(2);
    const rotated = new TrustStore({ keys: [trustEntryFor(rogue, ['spam-filter'])] });
    serve(await signedCatalog([entryOf(v2)], { keys: [rogue], previousVersion: 3e10 }));
    await expect(registryWith(rotated).catalog(CATALOG)).resolves.toHaveLength(1);
    await expectAnswers(registry, v1);
  });

  it('an entry whose signed size disagrees with its release is refused before downloading', async () => {
    const { registry, serve, server, v1, v2 } = await catalogWorld();
    serve(await signedCatalog([entryOf(v2, 1)], { keys: [builtin] }));
    const [entry] = await registry.catalog(CATALOG);
    const before = server.served.length;
    await expect(registry.install(entry!)).rejects.toThrow(ValidationError);
    expect(server.served.length).toBe(before);
    await expectAnswers(registry, v1);
  });

  it('an entry announcing a shadow run its manifest does not ask for is refused before downloading (the user would get it live)', async () => {
    const { registry, serve, server, v1, v2 } = await catalogWorld();
    serve(await signedCatalog([{ ...entryOf(v2), shadow: true }], { keys: [builtin] }));
    const [entry] = await registry.catalog(CATALOG);
    expect(entry?.shadow).toBe(true);
    const before = server.served.length;
    await expect(registry.install(entry!)).rejects.toThrow(new ValidationError('The catalog entry does not match the release it points to.'));
    expect(server.served.length).toBe(before);
    await expectAnswers(registry, v1);
  });
});

describe('attack: storage damage, eviction and interruptions must leave a way back', () => {
  it('a shared bundle file that stops being readable mid-install (moved, card taken out, access ended) fails with InputError unreadable-file; nothing changes and the active version answers', async () => {
    const { registry, publish, store } = await world();
    const v1 = await release(builtin, 'spam-filter', '1.0.0', 1);
    publish(v1);
    await install(registry, v1);
    const v2 = await release(builtin, 'spam-filter', '1.1.0', 2);
    const bytes = new Uint8Array(await bundleOf(v2).arrayBuffer());
    // The prefix, header and manifest read; the file goes away before its chunks are.
    let reads = 0;
    const vanishing: BundleSource = {
      size: bytes.length,
      slice: (start, end) => ({
        arrayBuffer: async () => {
          if (reads++ >= 3) throw new DOMException('The requested file could not be read.', 'NotReadableError');
          return bytes.slice(start, end).buffer;
        },
      }),
    };
    const error = await errorOf(registry.installBundle(vanishing));
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).details.reason).toBe('unreadable-file');
    expect((error as InputError).cause).toMatchObject({ name: 'NotReadableError' });
    expect((await store.pointer('spam-filter'))?.active).toBe('spam-filter@1.0.0');
    await expectAnswers(registry, v1);
  });

  it('a corrupt chunk another model also lists is dropped at quarantine, so reinstalling the version fetches it again', async () => {
    const { registry, publish, store } = await world();
    const base = await release(builtin, 'spam-filter', '1.0.0', 1);
    const onnx = base.files.get('onnx/model.onnx')!.map((b, i) => (i < 4096 ? b : b ^ 0x33));
    const next = await makeRelease(builtin, { id: 'spam-filter', version: '1.1.0', sequence: 2 }, onnx);
    const copy = await makeRelease(acme, { id: 'acme/copy', version: '1.0.0', sequence: 1 }, onnx);
    publish(base, next, copy);
    for (const r of [base, next, copy]) await install(registry, r);
    const damaged = next.manifest.files[0]!.chunks[2]!;
    const bytes = new Uint8Array((await store.getChunk(damaged))!);
    bytes[0]! ^= 1;
    await store.putChunk(damaged, bytes.buffer);
    await expect(registry.readActive('spam-filter')).rejects.toThrow(IntegrityError);
    await expectAnswers(registry, base);
    // The user reinstalls 1.1.0 while acme/copy has not been read yet: the network's good copy must replace the bad one.
    await install(registry, next);
    await expectAnswers(registry, next);
    await expectAnswers(registry, copy);
  });

  it('reinstalling the active version after some of its chunks were evicted fetches them (network or bundle)', async () => {
    for (const how of ['network', 'bundle'] as const) {
      const { store, name } = await freshNamedStore();
      const { registry, publish } = await world(trustOf(), store);
      const v1 = await release(builtin, 'spam-filter', '1.0.0', 1);
      const v2 = await release(builtin, 'spam-filter', '1.1.0', 2);
      publish(v1, v2);
      await install(registry, v1);
      await install(registry, v2);
      await evictChunks(name, v2.manifest.files[0]!.chunks.slice(0, 2));
      // Nothing has read 1.1.0 since: it is still "ready". Reinstalling it is the obvious repair.
      await (how === 'network' ? install(registry, v2) : registry.installBundle(bundleOf(v2)));
      await expectAnswers(registry, v2);
      expect((await store.pointer('spam-filter'))?.previous).toBe('spam-filter@1.0.0');
    }
  });

  it('an evicted chunk of the only version fails with a typed error naming no fallback, and a reinstall repairs it', async () => {
    const { store, name } = await freshNamedStore();
    const { registry, publish } = await world(trustOf(), store);
    const v1 = await release(builtin, 'spam-filter', '1.0.0', 1);
    publish(v1);
    await install(registry, v1);
    await evictChunks(name, [v1.manifest.files[0]!.chunks[1]!]);
    const error = await errorOf(registry.readActive('spam-filter'));
    expect(error).toBeInstanceOf(IntegrityError);
    expect((error as IntegrityError).details).toMatchObject({ id: 'spam-filter', fallback: null });
    expect((error as IntegrityError).message).toMatch(/reinstall the model/);
    await install(registry, v1);
    await expectAnswers(registry, v1);
  });

  it('a tab closed between the last verified chunk and activation leaves the old version active; resume activates the new one', async () => {
    const { registry, registryWith, publish, store } = await world();
    const v1 = await release(builtin, 'spam-filter', '1.0.0', 1);
    const v2 = await release(builtin, 'spam-filter', '1.1.0', 2);
    publish(v1, v2);
    await install(registry, v1);
    // The activation's transaction never commits: as if the tab died just before it.
    const activate = vi.spyOn(store, 'activate').mockRejectedValueOnce(new StorageError('The model store could not be updated.'));
    await expect(install(registry, v2)).rejects.toThrow(StorageError);
    activate.mockRestore();
    const reopened = registryWith(trustOf());
    await expectAnswers(reopened, v1);
    expect((await store.version('spam-filter@1.1.0'))?.status).toBe('downloading');
    await reopened.resume('spam-filter@1.1.0');
    await expectAnswers(reopened, v2);
  });

  it('a full disk mid-download fails with QuotaError; the active version answers and a later resume completes', async () => {
    const { registry, publish, store } = await world();
    const v1 = await release(builtin, 'spam-filter', '1.0.0', 1);
    const v2 = await release(builtin, 'spam-filter', '1.1.0', 2);
    publish(v1, v2);
    await install(registry, v1);
    const put = store.putChunk.bind(store);
    let room = 1;
    const full = vi.spyOn(store, 'putChunk').mockImplementation(async (sha, bytes) => {
      if (room-- <= 0) throw new QuotaError('The device is out of storage space; the download was stopped and installed models were left untouched.');
      return put(sha, bytes);
    });
    await expect(install(registry, v2)).rejects.toThrow(QuotaError);
    full.mockRestore();
    await expectAnswers(registry, v1);
    expect((await store.version('spam-filter@1.1.0'))?.status).toBe('downloading');
    await registry.resume('spam-filter@1.1.0');
    await expectAnswers(registry, v2);
  });
});

describe('attack: wrong software (the signed files are another model\'s)', () => {
  it('refuses a release whose config describes another model or task, over the network and as a bundle; the active version answers', async () => {
    const trust = trustOf();
    const { registry, publish, store } = await world(trust);
    const photos = await makeRelease(acme, { id: 'acme/photos', version: '1.0.0', sequence: 1, task: 'image-classification', labels: ['cat', 'dog'] });
    const reviews = await makeRelease(acme, { id: 'acme/reviews', version: '1.0.0', sequence: 1, labels: ['bad', 'good'] });
    // Acme's build packs the text model's files under the image model's id (in its own scope, validly signed).
    const mixed = await makeRelease(acme, { id: 'acme/photos', version: '1.1.0', sequence: 2, task: 'image-classification', labels: ['cat', 'dog'], files: reviews.manifest.files.map(({ path, role }) => ({ path, role, bytes: reviews.files.get(path)! })) });
    publish(photos, mixed);
    await install(registry, photos);
    for (const attempt of [() => install(registry, mixed), () => registry.installBundle(bundleOf(mixed))]) {
      const error = await errorOf(attempt());
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).message).toMatch(/config\.json describes acme\/reviews/);
      expect((await store.version('acme/photos@1.1.0'))?.status).toBe('rejected');
      await expectAnswers(registry, photos);
    }
  });

  it.each([
    ['the task', { task: 'text-classification' as const }, /text-classification/],
    ['the labels', { labels: ['dog', 'cat'] }, /labels/],
    ['the version', { version: '1.0.0' }, /another version/],
  ])('refuses a config that disagrees with the manifest on %s', async (_what, config, message) => {
    const { registry, publish } = await world();
    const photos = await makeRelease(acme, { id: 'acme/photos', version: '1.0.0', sequence: 1, task: 'image-classification', labels: ['cat', 'dog'] });
    const onnx = new Uint8Array(5000).fill(7);
    const meta = { id: 'acme/photos', version: '1.1.0', task: 'image-classification' as const, labels: ['cat', 'dog'] };
    const bad = await makeRelease(acme, { ...meta, sequence: 2, files: [{ path: 'onnx/model.onnx', role: 'onnx', bytes: onnx }, { path: 'config.json', role: 'config', bytes: configFor({ ...meta, ...config }) }] });
    publish(photos, bad);
    await install(registry, photos);
    await expect(install(registry, bad)).rejects.toThrow(message);
    await expectAnswers(registry, photos);
  });
});

describe('attack: a configuration the worker refuses (a careless build), without a golden set to catch it', () => {
  const encode = (json: unknown) => new TextEncoder().encode(JSON.stringify(json));
  const image = { id: 'acme/photos', task: 'image-classification' as const, labels: ['cat', 'dog'] };
  const text = { id: 'acme/reviews', task: 'text-classification' as const, labels: ['bad', 'good'] };
  it.each([
    ['a preprocessor_config.json padding to less than its own crop', image, [{ path: 'preprocessor_config.json', role: 'preprocessor' as const, bytes: encode({ size: { height: 8, width: 8 }, do_pad: true, pad_size: { height: 4, width: 4 } }) }], /preprocessor_config\.json is not valid at "pad_size"/],
    ['no preprocessor_config.json for an image model', image, [], /preprocessor_config\.json is missing/],
    // Loaded, it failed every photo as the photo's fault (InputError), which no rollback counts.
    ['a preprocessor_config.json resizing to 100,000 × 100,000 pixels', image, [{ path: 'preprocessor_config.json', role: 'preprocessor' as const, bytes: encode({ size: { height: 100_000, width: 100_000 } }) }], /preprocessor_config\.json is not valid at "size\.height": Too big: expected number to be <=4096/],
    ['a tokenizer_config.json whose special token is no AddedToken', text, [TASK_FILE['text-classification'], { path: 'tokenizer_config.json', role: 'tokenizer-config' as const, bytes: encode({ pad_token: { __type: 'Other', content: '[PAD]' } }) }], /tokenizer_config\.json is not valid at "pad_token"/],
    ['a tokenizer.json that is not JSON', text, [{ path: 'tokenizer.json', role: 'tokenizer' as const, bytes: encode('{').subarray(1) }], /tokenizer\.json is not valid JSON/],
    // Loaded, its normalizer held the worker for minutes on one 15-letter word (4^n backtracking).
    ['a tokenizer.json whose normalizer regex backtracks without bound', text, [{ path: 'tokenizer.json', role: 'tokenizer' as const, bytes: encode({
      ...JSON.parse(new TextDecoder().decode(TASK_FILE['text-classification'].bytes)) as object,
      normalizer: { type: 'Sequence', normalizers: [{ type: 'Lowercase' }, { type: 'Replace', pattern: { Regex: '(?:[a-z]|[a-z]|[a-z]|[a-z])+!' }, content: '' }] },
    }) }], /tokenizer\.json is not valid: a regular expression the worker would run on the user's text is refused: its pattern/],
    // Activated, the worker could not build it ("Tokenizer must contain a "decoder" property").
    ['a tokenizer.json without the stages the tokenizer library needs', text, [{ path: 'tokenizer.json', role: 'tokenizer' as const, bytes: encode({ model: { type: 'WordPiece', vocab: { '[UNK]': 0 } } }) }], /tokenizer\.json is not valid at "normalizer"/],
  ])('refuses %s before activating it, over the network and as a bundle; the active version answers', async (_what, model, own, message) => {
    const { registry, publish, store } = await world();
    const good = await makeRelease(acme, { ...model, version: '1.0.0', sequence: 1 });
    const files = [{ path: 'onnx/model.onnx', role: 'onnx' as const, bytes: new Uint8Array(5000).fill(7) }, { path: 'config.json', role: 'config' as const, bytes: configFor({ ...model, version: '1.1.0' }) }, ...own];
    const careless = await makeRelease(acme, { ...model, version: '1.1.0', sequence: 2, files });
    publish(good, careless);
    await install(registry, good);
    for (const attempt of [() => install(registry, careless), () => registry.installBundle(bundleOf(careless))]) {
      const error = await errorOf(attempt());
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).message).toMatch(message);
      expect((await store.version(`${model.id}@1.1.0`))?.status).toBe('rejected');
      await expectAnswers(registry, good);
    }
  });
});

/**
 * The store as the PWA has it: a registry gated by the runtime's own golden-set runner, and a
 * `Lantern` (fake workers) answering with v1 of the spam filter, warm; `next` is published beside it.
 */
async function gatedRuntime(next: TestRelease) {
  stubNavigatorLocks();
  const { createWorker, log } = fakeWorkers();
  const { store, server, publish } = await world();
  const v1 = await release(builtin, 'spam-filter', '1.0.0', 1);
  publish(v1, next);
  const registry: ModelRegistry = new ModelRegistry({
    store, trust: trustOf(), policy: new OriginPolicy(ORIGIN), fetch: server.fetch, backoffMs: 1, retries: 1,
    validate: goldenValidator(() => lantern),
  });
  const lantern = new Lantern({ createWorker, models: new StoreModelSource(Promise.resolve(registry)), idleMs: 0 });
  await install(registry, v1);
  expect((await lantern.classify('spam-filter', { kind: 'text', text: 'warm' })).version).toBe('1.0.0');
  /** v1 answers, in the store (read back verified) and in the runtime. */
  const expectV1Answers = async () => {
    await expectAnswers(registry, v1);
    expect((await lantern.classify('spam-filter', { kind: 'text', text: 'after' })).version).toBe('1.0.0');
  };
  return { store, registry, lantern, log, expectV1Answers };
}

describe('attack: a golden set that hangs the inference worker (a graph or tokenizer that never finishes)', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('the install is refused once the hung worker is restarted (the gate has a deadline); the active version answers, in the store and in the runtime', async () => {
    // The fake worker labels a text with itself: this golden set passes, if it ever answers.
    const hangs = await makeRelease(builtin, { id: 'spam-filter', version: '1.1.0', sequence: 2, validation: { threshold: 1, items: [{ input: { kind: 'text', text: 'hangs' }, label: 'hangs' }] } });
    const { store, registry, lantern, log, expectV1Answers } = await gatedRuntime(hangs);
    try {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
      let reached = false;
      log.onClassify = (inputs, worker) => {
        if (!inputs.some((input) => input.kind === 'text' && input.text === 'hangs')) return;
        reached = true;
        worker.dead = true;
      };
      const installing = errorOf(install(registry, hangs));
      await vi.waitFor(() => expect(reached).toBe(true));
      await vi.advanceTimersByTimeAsync(GOLDEN_ITEM_TIMEOUT_MS + ABANDONED_CALL_LIMIT_MS);
      const error = await installing;
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).message).toMatch(/kept the inference worker busy until it had to be restarted/);
      expect((await store.version('spam-filter@1.1.0'))?.status).toBe('rejected');
      await expectV1Answers();
    } finally {
      lantern.dispose();
    }
  });
});

describe('attack: an update whose model cannot be loaded (a truncated graph, an operator this runtime lacks)', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('is refused before it replaces the active version, and nothing of it runs; the active version answers, in the store and in the runtime', async () => {
    // No golden set: only the load stands between it and the users' requests.
    const unloadable = await release(builtin, 'spam-filter', '1.1.0', 2);
    const { store, registry, lantern, log, expectV1Answers } = await gatedRuntime(unloadable);
    try {
      // What ONNX Runtime says of a graph it cannot parse, for any session of the candidate.
      log.onLoad = (loaded) => {
        if (loaded.startsWith('candidate:')) throw new ModelLoadError('The model could not be loaded: protobuf parsing failed.');
      };
      const batchesBefore = log.started[0]!.batches.length;
      const error = await errorOf(install(registry, unloadable));
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).message).toMatch(/its model could not be loaded on this device/);
      expect((await store.version('spam-filter@1.1.0'))?.status).toBe('rejected');
      expect(log.started[0]!.batches.length).toBe(batchesBefore);
      await expectV1Answers();
    } finally {
      lantern.dispose();
    }
  });
});

describe('attack: scope escapes through the model id', () => {
  it.each(['ACME/photos', 'acme/../spam-filter', 'acme/x/../../spam-filter', '\uff41cme/photos', 'acme/photos\n', 'acme/ photos', 'acme//photos'])(
    'refuses the id %j, signed by Acme, as a malformed manifest (network and bundle); the built-in answers',
    async (id) => {
      const { registry, server, v1 } = await withInstalledV1();
      const hostile = await resigned(await release(acme, 'acme/photos', '1.0.0', 1), acme, (json) => {
        json.id = id;
      });
      server.put('x/manifest.json', hostile.bytes);
      server.put('x/manifest.sig.json', new TextEncoder().encode(JSON.stringify(hostile.signatures)));
      await expect(registry.install({ manifestUrl: `${ORIGIN}/x/manifest.json`, signatureUrl: `${ORIGIN}/x/manifest.sig.json` })).rejects.toThrow(ValidationError);
      await expect(registry.installBundle(bundleOf(hostile))).rejects.toThrow(ValidationError);
      await expectAnswers(registry, v1);
    },
  );

  it.each(['acme', 'acmecorp/photos', 'acme.evil/photos', 'spam-filter'])('refuses the well-formed id %j outside acme/ with a SignatureError', async (id) => {
    const { registry, v1 } = await withInstalledV1();
    await expect(registry.installBundle(bundleOf(await release(acme, id, '9.0.0', 99)))).rejects.toThrow(SignatureError);
    await expectAnswers(registry, v1);
  });
});

describe('attack: rollback by another path', () => {
  it('an older release is refused as a bundle after a network install, and after the user removed and re-added the model', async () => {
    const { registry, publish, store } = await world();
    const v1 = await release(builtin, 'spam-filter', '1.0.0', 1);
    const v2 = await release(builtin, 'spam-filter', '1.1.0', 2);
    publish(v1, v2);
    await install(registry, v1);
    await install(registry, v2);
    await store.removeVersion('spam-filter@1.0.0');
    await expect(registry.installBundle(bundleOf(v1))).rejects.toThrow(DowngradeError);
    await expectAnswers(registry, v2);
    await registry.removeModel('spam-filter');
    await expect(registry.installBundle(bundleOf(v1))).rejects.toThrow(DowngradeError);
    await expect(install(registry, v1)).rejects.toThrow(DowngradeError);
    await registry.installBundle(bundleOf(v2));
    await expectAnswers(registry, v2);
  });
});

describe('attack: the device clock', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('set far forward (every release and catalog expired): installed models answer, roll back and re-check trust; only updates stop', async () => {
    const { registry, publish, serveCatalog } = await world();
    const v1 = await release(builtin, 'spam-filter', '1.0.0', 1);
    const v2 = await release(builtin, 'spam-filter', '1.1.0', 2);
    const v3 = await release(builtin, 'spam-filter', '1.2.0', 3);
    publish(v1, v2, v3);
    await install(registry, v1);
    await install(registry, v2);
    serveCatalog(await signedCatalog([], { keys: [builtin] }));
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2150-01-01T00:00:00Z'));
    await expectAnswers(registry, v2);
    await registry.applyTrust(trustOf());
    await expectAnswers(registry, v2);
    await registry.rollback('spam-filter', 'spam-filter@1.0.0');
    await expectAnswers(registry, v1);
    await expect(registry.catalog(`${ORIGIN}/catalog.json`)).rejects.toThrow(/Installed models keep working/);
    await expect(install(registry, v3)).rejects.toThrow(/has expired/);
    await expectAnswers(registry, v1);
  });

  it('set back (expired documents look fresh again): a replayed older catalog or release is still refused by its version', async () => {
    const { registry, publish, serveCatalog } = await world();
    const v1 = await release(builtin, 'spam-filter', '1.0.0', 1);
    const v2 = await release(builtin, 'spam-filter', '1.1.0', 2);
    publish(v1, v2);
    await install(registry, v2);
    serveCatalog(await signedCatalog([], { keys: [builtin], previousVersion: 2e10 }));
    await registry.catalog(`${ORIGIN}/catalog.json`);
    // A catalog that expired in 2021, replayed to a device whose clock says 2020.
    serveCatalog(await signedCatalog([], { keys: [builtin], previousVersion: 10, now: new Date('2020-12-01T00:00:00Z'), expiresAt: '2021-01-01T00:00:00.000Z' }));
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2020-12-15T00:00:00Z'));
    await expect(registry.catalog(`${ORIGIN}/catalog.json`)).rejects.toThrow(DowngradeError);
    await expect(install(registry, v1)).rejects.toThrow(DowngradeError);
    await expectAnswers(registry, v2);
  });
});

describe('attack: a catalog entry pointing at another model\'s release', () => {
  it('refuses an entry for spam-filter whose manifest is acme/photos (validly signed in its own scope); the built-in answers', async () => {
    const { registry, publish, store } = await world();
    const v1 = await release(builtin, 'spam-filter', '1.0.0', 1);
    const photos = await release(acme, 'acme/photos', '2.0.0', 2);
    publish(v1, photos);
    await install(registry, v1);
    const entry = { id: 'spam-filter', version: '2.0.0', sequence: 2, size: totalSize(photos.manifest), ...urls('2.0.0', 'acme/photos') };
    await expect(registry.install(entry)).rejects.toThrow(/does not match the release it points to/);
    expect(await store.pointer('acme/photos')).toBeUndefined();
    await expectAnswers(registry, v1);
  });
});

describe('withdrawals: a publisher takes a release back through its signed catalog', () => {
  const CATALOG = `${ORIGIN}/catalog.json`;
  const reason = 'flags invoices as spam';
  const withdrawn = (r: TestRelease) => ({ ...entryOf(r), withdrawn: reason });

  /** spam-filter 1.0.0 then 1.1.0 installed from the built-in key: 1.1.0 answers, 1.0.0 is its previous. */
  async function twoInstalled(trust = trustOf()) {
    const w = await world(trust);
    const v1 = await release(builtin, 'spam-filter', '1.0.0', 1);
    const v2 = await release(builtin, 'spam-filter', '1.1.0', 2);
    w.publish(v1, v2);
    await install(w.registry, v1);
    await install(w.registry, v2);
    return { ...w, v1, v2 };
  }

  it('hands the active version over to the previous one, tells the user the publisher\'s reason, and never offers or installs it again', async () => {
    const { registry, serveCatalog, store, v1, v2 } = await twoInstalled();
    serveCatalog(await signedCatalog([entryOf(v1), withdrawn(v2)], { keys: [builtin] }));
    expect((await registry.catalog(CATALOG)).map((r) => r.version)).toEqual(['1.0.0']);
    await expectAnswers(registry, v1);
    expect(registry.notices).toEqual([{ kind: 'withdrawn', id: 'spam-filter', version: '1.1.0', fallbackVersion: '1.0.0', reason }]);
    expect(await store.version('spam-filter@1.1.0')).toMatchObject({ status: 'withdrawn', withdrawn: reason });
    const again = await errorOf(install(registry, v2));
    expect(again).toBeInstanceOf(ValidationError);
    expect((again as Error).message).toBe(`Version 1.1.0 of spam-filter was withdrawn by its publisher ("${reason}"); it is not installed again on this device.`);
    await expectAnswers(registry, v1);
  });

  it('attack: refuses a withdrawal signed by a key outside the model\'s scope; the version keeps answering', async () => {
    const { registry, serveCatalog, store, v2 } = await twoInstalled();
    serveCatalog(await signedCatalog([withdrawn(v2)], { keys: [acme] }));
    expect(await errorOf(registry.catalog(CATALOG))).toBeInstanceOf(SignatureError);
    await expectAnswers(registry, v2);
    expect((await store.version('spam-filter@1.1.0'))?.status).toBe('ready');
    expect(registry.notices).toEqual([]);
  });

  it('attack: one key withdrawing every version cannot take the model away: the active one keeps answering, marked withdrawn, told once', async () => {
    const { registry, publish, serveCatalog, store, v1, v2 } = await twoInstalled();
    serveCatalog(await signedCatalog([withdrawn(v1), withdrawn(v2)], { keys: [builtin] }));
    expect(await registry.catalog(CATALOG)).toEqual([]);
    await expectAnswers(registry, v2);
    expect(registry.notices).toEqual([{ kind: 'withdrawn-kept', id: 'spam-filter', version: '1.1.0', reason }]);
    expect(await store.version('spam-filter@1.1.0')).toMatchObject({ status: 'ready', withdrawn: reason });
    expect((await store.version('spam-filter@1.0.0'))?.status).toBe('withdrawn');
    registry.dismissNotice(registry.notices[0]!);
    await registry.catalog(CATALOG);
    expect(registry.notices).toEqual([]);
    await expectAnswers(registry, v2);
    // Once a newer release answers, the kept one is gone for good: no rollback returns to it.
    const v3 = await release(builtin, 'spam-filter', '1.2.0', 3);
    publish(v3);
    await install(registry, v3);
    expect(await errorOf(registry.rollback('spam-filter', 'spam-filter@1.1.0'))).toBeInstanceOf(StorageError);
    expect((await store.version('spam-filter@1.1.0'))?.status ?? 'collected').toMatch(/^(withdrawn|collected)$/);
    await expectAnswers(registry, v3);
  });

  it('attack: the withdrawn release, shared as a bundle or fetched again after garbage collection and after the model was removed, is refused; the previous version answers', async () => {
    const { registry, publish, serveCatalog, store, v1, v2 } = await twoInstalled();
    serveCatalog(await signedCatalog([entryOf(v1), withdrawn(v2)], { keys: [builtin] }));
    await registry.catalog(CATALOG);
    // Any activation collects garbage over the store: the withdrawn version's record goes.
    const other = await release(acme, 'acme/photos', '1.0.0', 1);
    publish(other);
    await install(registry, other);
    expect(await store.version('spam-filter@1.1.0')).toBeUndefined();
    const message = `Version 1.1.0 of spam-filter was withdrawn by its publisher ("${reason}"); it is not installed again on this device.`;
    const refused = new ValidationError(message, { id: 'spam-filter', version: '1.1.0' });
    await expect(registry.installBundle(bundleOf(v2))).rejects.toThrow(refused);
    await expect(install(registry, v2)).rejects.toThrow(refused);
    await expectAnswers(registry, v1);
    // Removed and added again, the model still never gets it back.
    await registry.removeModel('spam-filter');
    await expect(registry.installBundle(bundleOf(v2))).rejects.toThrow(refused);
    expect(await store.versions('spam-filter')).toEqual([]);
  });

  it('attack: a mirror still listing a release its publisher withdrew (a catalog from before) neither offers nor installs it', async () => {
    const { registry, serveCatalog, server, store, v1 } = await withInstalledV1();
    const v2 = await release(builtin, 'spam-filter', '1.1.0', 2);
    server.add(v2);
    const v1Entry = entryOf(v1);
    // The mirror's copy points at the publisher's files (paths from the origin's root).
    const mirrored = { ...entryOf(v2), manifest: `/${entryOf(v2).manifest}`, signature: `/${entryOf(v2).signature}`, rollout: 1 };
    const before = await signedCatalog([v1Entry, mirrored], { keys: [builtin], previousVersion: 100 });
    server.put('mirror/catalog.json', before.catalog);
    server.put('mirror/catalog.sig.json', before.signature);
    serveCatalog(await signedCatalog([v1Entry, withdrawn(v2)], { keys: [builtin], previousVersion: 200 }));
    await registry.catalog(CATALOG);
    expect((await registry.catalog(`${ORIGIN}/mirror/catalog.json`)).map((r) => r.version)).toEqual(['1.0.0']);
    // Handed its entry directly (an update check that read the mirror first): refused before any model file.
    const [listed] = releasesOf(parseCatalog(before.catalog), `${ORIGIN}/mirror/catalog.json`).filter((r) => r.version === '1.1.0');
    const served = server.served.length;
    await expect(registry.install(listed!)).rejects.toThrow(/1\.1\.0 of spam-filter was withdrawn by its publisher/);
    expect(server.served.length).toBe(served);
    expect(await store.version('spam-filter@1.1.0')).toBeUndefined();
    await expectAnswers(registry, v1);
  });

  it('attack: a release withdrawn before this device ever had its model, shared later as a bundle or fetched from its URL, is refused; the active model answers', async () => {
    const { registry, publish, serveCatalog, store, v2 } = await twoInstalled();
    const photos = await release(acme, 'acme/photos', '1.0.0', 1);
    publish(photos);
    serveCatalog(await signedCatalog([withdrawn(photos)], { keys: [acme] }));
    expect(await registry.catalog(CATALOG)).toEqual([]);
    const refused = new ValidationError(`Version 1.0.0 of acme/photos was withdrawn by its publisher ("${reason}"); it is not installed again on this device.`, { id: 'acme/photos', version: '1.0.0' });
    await expect(registry.installBundle(bundleOf(photos))).rejects.toThrow(refused);
    await expect(install(registry, photos)).rejects.toThrow(refused);
    expect(await store.versions('acme/photos')).toEqual([]);
    await expectAnswers(registry, v2);
  });

  it('attack: catalogs listing a thousand withdrawals each, at every check, keep at most 64 per model the device has and one catalog\'s worth per URL for ids it never had; the active version answers', async () => {
    // The built-in key may also sign ids under made/ (none of which this device has).
    const { registry, serveCatalog, store, v1, v2 } = await twoInstalled(new TrustStore({ keys: [trustEntryFor(builtin, ['spam-filter', 'made/'])] }));
    const made = (round: number) => Array.from({ length: 500 }, (_, i) => ({
      ...withdrawn(v2), id: `made/up-${round}-${i}`, manifest: `x/${i}.json`, signature: `x/${i}.sig.json`,
    }));
    const versions = (round: number) => Array.from({ length: 499 }, (_, i) => ({ ...withdrawn(v2), version: `9.${round}.${i}`, sequence: 1000 * round + i }));
    for (const round of [1, 2, 3]) {
      serveCatalog(await signedCatalog([entryOf(v1), ...made(round), ...versions(round)], { keys: [builtin], previousVersion: 2e10 + round * 10 }));
      await expect(registry.catalog(CATALOG)).resolves.toEqual([expect.objectContaining({ version: '1.0.0' })]);
    }
    const kept = (key: string, sequence: number) => store.withdrawnOf([{ key, sequence }]).then(([w]) => w);
    // Ids never had: the two newest catalogs' 500 each; the oldest catalog's were crowded out.
    expect([await kept('made/up-3-0@1.1.0', 2), await kept('made/up-2-499@1.1.0', 2), await kept('made/up-1-0@1.1.0', 2)]).toEqual([true, true, false]);
    expect(await kept('spam-filter@9.3.498', 3498)).toBe(true);
    expect(await kept('spam-filter@9.3.435', 3435)).toBe(true);
    expect(await kept('spam-filter@9.3.434', 3434)).toBe(false);
    expect(await kept('spam-filter@9.2.498', 2498)).toBe(false);
    await expectAnswers(registry, v2);
  });

  it('attack: a version kept answering after its withdrawal cannot be shared to spread it; the user is told why', async () => {
    const { registry, serveCatalog, v1, v2 } = await twoInstalled();
    serveCatalog(await signedCatalog([withdrawn(v1), withdrawn(v2)], { keys: [builtin] }));
    await registry.catalog(CATALOG);
    const shared = await errorOf(registry.exportBundle('spam-filter@1.1.0'));
    expect(shared).toBeInstanceOf(ValidationError);
    expect((shared as Error).message).toBe(`spam-filter 1.1.0 was withdrawn by its publisher (${reason}); it keeps answering here until another version can, but it cannot be shared.`);
    await expectAnswers(registry, v2);
  });

  it('attack: a withdrawal naming the installed version under another sequence withdraws nothing; one with an overlong reason is refused whole', async () => {
    const { registry, serveCatalog, store, v1, v2 } = await twoInstalled();
    serveCatalog(await signedCatalog([entryOf(v1), { ...withdrawn(v2), sequence: 7 }], { keys: [builtin], previousVersion: 10 }));
    await registry.catalog(CATALOG);
    expect((await store.version('spam-filter@1.1.0'))?.status).toBe('ready');
    expect(registry.notices).toEqual([]);
    await expectAnswers(registry, v2);
    serveCatalog(await signedCatalog([entryOf(v1), { ...withdrawn(v2), withdrawn: 'x'.repeat(301) }], { keys: [builtin], previousVersion: 20 }));
    expect(await errorOf(registry.catalog(CATALOG))).toBeInstanceOf(ValidationError);
    expect((await store.version('spam-filter@1.1.0'))?.status).toBe('ready');
    await expectAnswers(registry, v2);
  });

  it('attack: where a scope needs two keys, one key\'s withdrawal is refused and the countersigned one is taken', async () => {
    const acme2 = await generateKey('Acme, second maintainer');
    const trust = new TrustStore({ keys: [trustEntryFor(acme, ['acme/']), trustEntryFor(acme2, ['acme/'])], thresholds: [{ scope: ['acme/'], signatures: 2 }] });
    const { registry, publish, serveCatalog } = await world(trust);
    const both = async (r: TestRelease): Promise<TestRelease> => ({ ...r, signatures: { signatures: [...r.signatures.signatures, await sign(r.bytes, acme2)] } });
    const [v1, v2] = [await both(await release(acme, 'acme/spam', '1.0.0', 1)), await both(await release(acme, 'acme/spam', '2.0.0', 2))];
    publish(v1, v2);
    await install(registry, v1);
    await install(registry, v2);
    serveCatalog(await signedCatalog([entryOf(v1), withdrawn(v2)], { keys: [acme], previousVersion: 10 }));
    expect(await errorOf(registry.catalog(CATALOG))).toBeInstanceOf(SignatureError);
    await expectAnswers(registry, v2);
    serveCatalog(await signedCatalog([entryOf(v1), withdrawn(v2)], { keys: [acme, acme2], previousVersion: 10 }));
    await registry.catalog(CATALOG);
    await expectAnswers(registry, v1);
  });
});
