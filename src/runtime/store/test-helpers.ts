import { buildManifest, type Manifest, type PackInput } from './manifest.ts';
import { ModelStore } from './model-store.ts';
import { OriginPolicy } from './net.ts';
import { ModelRegistry } from './registry.ts';
import { generateKey, sign, TrustStore, trustEntryFor, type KeyFile, type SignatureFile } from './trust.ts';

/** Test-only helpers: in-memory signed releases and a throwaway store per test. */

let dbCounter = 0;
/** A throwaway store and its database name (for tests that reach behind the store, as a browser may). */
export async function freshNamedStore(): Promise<{ store: ModelStore; name: string }> {
  const name = `test-${Date.now()}-${dbCounter++}`;
  return { store: await ModelStore.open(name), name };
}
export const freshStore = async (): Promise<ModelStore> => (await freshNamedStore()).store;

/** Deletes chunks behind the store's back, as a browser evicting part of the origin's data (or a user clearing it) would. */
export async function evictChunks(dbName: string, shas: readonly string[]): Promise<void> {
  const request = indexedDB.open(dbName);
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error('open failed'));
  });
  const tx = db.transaction('chunks', 'readwrite');
  for (const sha of shas) tx.objectStore('chunks').delete(sha);
  await new Promise<void>((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error ?? new Error('delete failed'));
  });
  db.close();
}

export interface TestRelease {
  manifest: Manifest;
  bytes: Uint8Array<ArrayBuffer>;
  signatures: SignatureFile;
  files: Map<string, Uint8Array>;
}

/** Deterministic pseudo-random bytes so different versions get different chunks. */
function fakeBytes(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed * 2654435761 >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
    out[i] = x & 0xff;
  }
  return out;
}

/**
 * Test releases are made a day before the run and expire a year after it, as model:pack's would:
 * fixed for the whole run, so two calls with the same arguments give the same bytes.
 */
const CREATED_AT = new Date(Date.now() - 86_400_000).toISOString();
const EXPIRES_AT = new Date(Date.now() + 365 * 86_400_000).toISOString();

/** The config.json `model:pack` writes for a release: its lantern block says what the manifest says. */
export const configFor = (release: { id: string; version: string; task: PackInput['task']; labels: readonly string[] }): Uint8Array<ArrayBuffer> => new TextEncoder().encode(JSON.stringify({
  id2label: Object.fromEntries(release.labels.map((label, i) => [String(i), label])),
  lantern: { id: release.id, version: release.version, task: release.task },
}));

/**
 * The smallest file of each task's own configuration that the worker loads (model-config's
 * parseTaskConfigs): the store refuses a release without it.
 */
export const TASK_FILE: Record<PackInput['task'], PackInput['files'][number]> = {
  'text-classification': { path: 'tokenizer.json', role: 'tokenizer', bytes: new TextEncoder().encode('{"model":{"type":"WordPiece"},"normalizer":null,"pre_tokenizer":null,"post_processor":null,"decoder":null,"added_tokens":[]}') },
  'image-classification': { path: 'preprocessor_config.json', role: 'preprocessor', bytes: new TextEncoder().encode('{"size":{"height":8,"width":8}}') },
};

export async function makeRelease(key: KeyFile, overrides: Partial<PackInput> & { version: string; sequence: number }, onnx = fakeBytes(10_000, overrides.sequence)): Promise<TestRelease> {
  const task = overrides.task ?? 'text-classification';
  const config = configFor({ id: 'demo', labels: ['a', 'b'], ...overrides, task });
  const input: PackInput = {
    id: 'demo', task, title: 'Demo', batch: 'dynamic', labels: ['a', 'b'],
    createdAt: CREATED_AT, expiresAt: EXPIRES_AT, chunkSize: 4096,
    files: [{ path: 'onnx/model.onnx', role: 'onnx', bytes: onnx }, { path: 'config.json', role: 'config', bytes: config }, TASK_FILE[task]],
    ...overrides,
  };
  const { manifest, bytes } = await buildManifest(input);
  const signatures = { signatures: [await sign(bytes, key)] };
  return { manifest, bytes, signatures, files: new Map(input.files.map((f) => [f.path, f.bytes])) };
}

export async function keyAndTrust(scope: readonly string[] = ['demo']): Promise<{ key: KeyFile; trust: TrustStore }> {
  const key = await generateKey('test publisher');
  return { key, trust: new TrustStore({ keys: [trustEntryFor(key, scope)] }) };
}

export const ORIGIN = 'https://models.example';

/** Where FakeServer publishes a release: `${ORIGIN}/<id>/<version>/`. */
export const urls = (version: string, id = 'demo') => ({
  manifestUrl: `${ORIGIN}/${id}/${version}/manifest.json`,
  signatureUrl: `${ORIGIN}/${id}/${version}/manifest.sig.json`,
});

/**
 * A fake HTTP server for releases (and any other file), honouring Range like a real one, with
 * hooks to misbehave and a log of every part of a release file it fully served (`path:start`;
 * a whole file is `path:0`, and `wholeFiles` says which those were). Paths are relative to ORIGIN.
 */
export class FakeServer {
  served: string[] = [];
  wholeFiles: string[] = [];
  misbehave?: (path: string, range: [number, number] | undefined) => Response | 'drop' | undefined;
  private readonly files = new Map<string, Uint8Array>();
  private readonly releaseFiles = new Set<string>();

  add(release: TestRelease, signatures = release.signatures): void {
    const dir = `${ORIGIN}/${release.manifest.id}/${release.manifest.version}/`;
    this.files.set(`${dir}manifest.json`, release.bytes);
    this.files.set(`${dir}manifest.sig.json`, new TextEncoder().encode(JSON.stringify(signatures)));
    for (const [path, bytes] of release.files) {
      this.files.set(`${dir}${path}`, bytes);
      this.releaseFiles.add(`${dir}${path}`);
    }
  }

  put(path: string, bytes: Uint8Array): void {
    this.files.set(`${ORIGIN}/${path}`, bytes);
  }

  fetch: typeof fetch = async (input, init) => {
    const url = String(input);
    const path = url.slice(ORIGIN.length + 1);
    const header = new Headers(init?.headers).get('Range');
    const match = header ? /^bytes=(\d+)-(\d+)$/.exec(header) : null;
    const range: [number, number] | undefined = match ? [Number(match[1]), Number(match[2])] : undefined;
    const bad = this.misbehave?.(path, range);
    if (bad === 'drop') throw new TypeError('Failed to fetch');
    if (bad) return bad;
    const body = this.files.get(url);
    if (!body) return new Response('not found', { status: 404 });
    if (!range) {
      if (this.releaseFiles.has(url)) {
        this.served.push(`${path}:0`);
        this.wholeFiles.push(path);
      }
      return new Response(body.slice(), { status: 200 });
    }
    this.served.push(`${path}:${range[0]}`);
    const end = Math.min(range[1], body.length - 1);
    return new Response(body.slice(range[0], end + 1), { status: 206, headers: { 'Content-Range': `bytes ${range[0]}-${end}/${body.length}` } });
  };
}

/** A fresh store, a server publishing these releases of `demo` (makeRelease), and a registry over both trusting `trust`. */
export async function publishedRegistry(key: KeyFile, trust: TrustStore, ...versions: (Partial<PackInput> & { version: string; sequence: number })[]) {
  const store = await freshStore();
  const server = new FakeServer();
  for (const v of versions) server.add(await makeRelease(key, v));
  const registry = new ModelRegistry({ store, trust, policy: new OriginPolicy(ORIGIN), fetch: server.fetch, backoffMs: 1, retries: 2 });
  return { store, server, registry };
}
