import 'fake-indexeddb/auto';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { LanternError } from '../errors.ts';
import { signedCatalog } from '../../../scripts/model-pack/release.ts';
import { writeBundle } from './bundle.ts';
import { totalSize } from './manifest.ts';
import { OriginPolicy } from './net.ts';
import { ModelRegistry } from './registry.ts';
import { FakeServer, freshStore, makeRelease, ORIGIN, urls, type TestRelease } from './test-helpers.ts';
import { generateKey, sign, TrustStore, trustEntryFor, type KeyFile } from './trust.ts';

/**
 * Property-based attacks: valid manifests, signatures, catalogs and bundles mutated at random.
 * Whatever the mutation, the store only ever throws Lantern's typed errors, never activates (or
 * accepts) bytes that differ from what was signed, and the version active before still answers.
 */

let publisher: KeyFile;
let trust: TrustStore;
let v1: TestRelease;
let v2: TestRelease;
beforeAll(async () => {
  publisher = await generateKey('publisher');
  trust = new TrustStore({ keys: [trustEntryFor(publisher, ['demo'])] });
  v1 = await makeRelease(publisher, { version: '1.0.0', sequence: 1 });
  v2 = await makeRelease(publisher, { version: '2.0.0', sequence: 2 });
});

/** One random edit of a byte string: flip, overwrite, insert, delete or truncate. */
const mutation = fc.record({
  kind: fc.constantFrom('flip', 'set', 'insert', 'delete', 'truncate'),
  at: fc.nat(),
  byte: fc.integer({ min: 0, max: 255 }),
  bit: fc.integer({ min: 0, max: 7 }),
});
type Mutation = typeof mutation extends fc.Arbitrary<infer T> ? T : never;

function mutate(bytes: Uint8Array, m: Mutation): Uint8Array<ArrayBuffer> {
  const at = m.at % Math.max(1, bytes.length);
  const out = [...bytes];
  if (m.kind === 'flip') out[at]! ^= 1 << m.bit;
  if (m.kind === 'set') out[at] = out[at] === m.byte ? (m.byte + 1) & 0xff : m.byte;
  if (m.kind === 'insert') out.splice(at, 0, m.byte);
  if (m.kind === 'delete') out.splice(at, 1);
  if (m.kind === 'truncate') out.length = at;
  return new Uint8Array(out);
}

const encode = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

async function device() {
  const store = await freshStore();
  const server = new FakeServer();
  server.add(v1);
  const registry = new ModelRegistry({ store, trust, policy: new OriginPolicy(ORIGIN), fetch: server.fetch, backoffMs: 1, retries: 0 });
  await registry.install(urls('1.0.0'));
  return { store, server, registry };
}

/** Either a Lantern error, or (for a harmless edit) exactly the signed release; v1 or that release answers. */
async function expectTypedOrOriginal(outcome: Promise<unknown>, registry: ModelRegistry, original: TestRelease): Promise<void> {
  const error = await outcome.then(() => undefined, (e: unknown) => e);
  if (error !== undefined) expect(error).toBeInstanceOf(LanternError);
  const { manifest, read } = await registry.readActive('demo');
  const expected = error === undefined ? original : v1;
  expect(manifest.version).toBe(expected.manifest.version);
  expect([...read.files.get('onnx')!]).toEqual([...expected.files.get('onnx/model.onnx')!]);
}

const RUNS = { numRuns: 40 };

describe('mutated releases are refused with typed errors', () => {
  it('manifest bytes edited after signing', async () => {
    await fc.assert(fc.asyncProperty(mutation, async (m) => {
      const { server, registry } = await device();
      server.add({ ...v2, bytes: mutate(v2.bytes, m) });
      await expectTypedOrOriginal(registry.install(urls('2.0.0')), registry, v2);
      expect((await registry.readActive('demo')).manifest.version).toBe('1.0.0');
    }), RUNS);
  });

  it('signature files edited', async () => {
    await fc.assert(fc.asyncProperty(mutation, async (m) => {
      const { server, registry } = await device();
      server.add(v2);
      server.put('demo/2.0.0/manifest.sig.json', mutate(encode(v2.signatures), m));
      await expectTypedOrOriginal(registry.install(urls('2.0.0')), registry, v2);
    }), RUNS);
  });

  it('file bytes edited on the server', async () => {
    await fc.assert(fc.asyncProperty(mutation, fc.constantFrom('onnx/model.onnx', 'config.json'), async (m, path) => {
      const { server, registry } = await device();
      server.add(v2);
      server.put(`demo/2.0.0/${path}`, mutate(v2.files.get(path)!, m));
      await expectTypedOrOriginal(registry.install(urls('2.0.0')), registry, v2);
    }), RUNS);
  });

  it('sideloaded bundles edited anywhere', async () => {
    const bundle = writeBundle(v2.bytes, v2.signatures, [...v2.files].map(([path, bytes]) => ({ path, bytes })));
    await fc.assert(fc.asyncProperty(mutation, async (m) => {
      const { registry } = await device();
      await expectTypedOrOriginal(registry.installBundle(new Blob([mutate(bundle, m)])), registry, v2);
    }), RUNS);
  });

  it('manifest fields changed and validly re-signed: typed errors only, and whatever answers reads back verified', async () => {
    const json = JSON.parse(new TextDecoder().decode(v2.bytes)) as Record<string, unknown>;
    const field = fc.oneof(
      fc.record({ path: fc.constantFrom('id', 'version', 'title', 'createdAt', 'expiresAt', 'task', 'batch'), value: fc.oneof(fc.string(), fc.constant('acme/x'), fc.constant('2000-01-01T00:00:00.000Z')) }),
      fc.record({ path: fc.constantFrom('sequence', 'files.0.size', 'files.0.chunkSize', 'files.1.size'), value: fc.oneof(fc.integer({ min: -2, max: 20_000 }), fc.constant(Number.MAX_SAFE_INTEGER)) }),
      fc.record({ path: fc.constantFrom('files.0.sha256', 'files.0.chunks.1', 'files.1.sha256', 'files.0.path', 'files.0.role'), value: fc.oneof(fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 64, maxLength: 64 }), fc.constantFrom('../x', 'config', 'onnx/model.onnx')) }),
    );
    await fc.assert(fc.asyncProperty(field, async ({ path, value }) => {
      const edited = structuredClone(json);
      const keys = path.split('.');
      let target = edited as Record<string, unknown>;
      for (const k of keys.slice(0, -1)) target = target[k] as Record<string, unknown>;
      target[keys.at(-1)!] = value;
      const bytes = encode(edited);
      const { server, registry } = await device();
      server.add({ ...v2, bytes, signatures: { signatures: [await sign(bytes, publisher)] } });
      const error = await registry.install(urls('2.0.0')).then(() => undefined, (e: unknown) => e);
      if (error !== undefined) expect(error).toBeInstanceOf(LanternError);
      // Whatever is active reads back verified against its own signed manifest.
      const { manifest, read } = await registry.readActive('demo');
      expect(read.ok).toBe(true);
      if (error !== undefined) expect(manifest.version).toBe('1.0.0');
    }), RUNS);
  });
});

describe('mutated catalogs are refused with typed errors and never accepted', () => {
  it('catalog or signature bytes edited after signing', async () => {
    const entry = { id: 'demo', version: '2.0.0', sequence: 2, manifest: 'demo/2.0.0/manifest.json', signature: 'demo/2.0.0/manifest.sig.json', size: 0 };
    await fc.assert(fc.asyncProperty(mutation, fc.boolean(), async (m, inSignature) => {
      const { server, registry, store } = await device();
      const good = await signedCatalog([{ ...entry, size: totalSize(v2.manifest) }], { keys: [publisher] });
      server.put('catalog.json', inSignature ? good.catalog : mutate(good.catalog, m));
      server.put('catalog.sig.json', inSignature ? mutate(good.signature, m) : good.signature);
      const error = await registry.catalog(`${ORIGIN}/catalog.json`).then(() => undefined, (e: unknown) => e);
      if (error === undefined) {
        // Only a harmless edit of the signature file (the catalog bytes are what is signed) may pass.
        expect(inSignature).toBe(true);
      } else {
        expect(error).toBeInstanceOf(LanternError);
        // Nothing was remembered: the genuine catalog is still accepted afterwards.
        server.put('catalog.json', good.catalog);
        server.put('catalog.sig.json', good.signature);
        await expect(registry.catalog(`${ORIGIN}/catalog.json`)).resolves.toHaveLength(1);
      }
      expect((await registry.readActive('demo')).manifest.version).toBe('1.0.0');
      store.close();
    }), RUNS);
  });
});
