import { afterEach, describe, expect, it, vi } from 'vitest';
import { ORT_CACHE } from '../src/runtime/ort-cache.ts';
import { dropDamagedOrtCopy, keepOrtOffline, ortFileOrNull } from './ort-offline.ts';

const GLUE = 'https://app.test/assets/ort-wasm-simd-threaded-abc123.mjs';
const WASM = 'https://app.test/assets/ort-wasm-simd-threaded-abc123.wasm';
/** The smallest valid module: magic and version. */
const EMPTY_MODULE = Uint8Array.of(0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0);
const PORTAL = '<html><body>Sign in to the hotel Wi-Fi</body></html>';

const wasmResponse = (body: BodyInit) => new Response(body, { headers: { 'Content-Type': 'application/wasm' } });
const glueResponse = () => new Response('export default 1;', { headers: { 'Content-Type': 'text/javascript; charset=utf-8' } });
const portalResponse = () => new Response(PORTAL, { headers: { 'Content-Type': 'text/html' } });

/** An in-memory CacheStorage with one cache per name: the part ort-offline uses. */
function memoryStorage(entries: Record<string, Response> = {}) {
  const store = new Map<string, Response>(Object.entries(entries));
  const cache = {
    match: async (url: string) => store.get(url)?.clone(),
    put: async (url: string, response: Response) => void store.set(url, response),
    delete: async (request: string | Request) => store.delete(typeof request === 'string' ? request : request.url),
    keys: async () => [...store.keys()].map((url) => new Request(url)),
  };
  const storage = { open: async (name: string) => (name === ORT_CACHE ? cache : undefined) } as unknown as CacheStorage;
  return { storage, store };
}

afterEach(() => vi.unstubAllGlobals());

/** What workbox writes into sw.js: the function's source alone, without this module around it. */
const serviceWorkerCopy = new Function(`return (${String(ortFileOrNull)});`)() as typeof ortFileOrNull;

describe('ortFileOrNull', () => {
  it.each([['in the worker', ortFileOrNull], ['as inlined into sw.js', serviceWorkerCopy]])('%s: passes the wasm and the JavaScript glue, refuses a portal page and an error', async (_, check) => {
    const passes = async (url: string, response: Response) => (await check({ request: { url }, response })) === response;
    expect(await passes(WASM, wasmResponse(EMPTY_MODULE))).toBe(true);
    expect(await passes(GLUE, glueResponse())).toBe(true);
    expect(await passes(WASM, portalResponse())).toBe(false);
    expect(await passes(GLUE, portalResponse())).toBe(false);
    expect(await passes(WASM, new Response(EMPTY_MODULE, { status: 404, headers: { 'Content-Type': 'application/wasm' } }))).toBe(false);
  });
});

describe('keepOrtOffline', () => {
  it('keeps the build\'s files and prunes every other entry', async () => {
    const { storage, store } = memoryStorage({ 'https://app.test/assets/ort-wasm-simd-threaded-old.wasm': wasmResponse(EMPTY_MODULE) });
    vi.stubGlobal('fetch', async (url: string) => (url === WASM ? wasmResponse(EMPTY_MODULE) : glueResponse()));
    await keepOrtOffline([GLUE, WASM], storage);
    expect([...store.keys()].sort()).toEqual([GLUE, WASM]);
  });

  it('does not keep a captive portal\'s page in place of ORT', async () => {
    const { storage, store } = memoryStorage();
    vi.stubGlobal('fetch', async () => portalResponse());
    await keepOrtOffline([GLUE, WASM], storage);
    expect(store.size).toBe(0);
  });
});

describe('dropDamagedOrtCopy', () => {
  it('drops the build when its wasm does not validate (an interrupted write)', async () => {
    const truncated = Uint8Array.of(0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 0x01, 0x7f);
    const { storage, store } = memoryStorage({ [GLUE]: glueResponse(), [WASM]: wasmResponse(truncated) });
    expect(await dropDamagedOrtCopy([GLUE, WASM], storage)).toBe(true);
    expect(store.size).toBe(0);
  });

  it('drops the build when a file is not what it must be', async () => {
    const { storage, store } = memoryStorage({ [GLUE]: portalResponse(), [WASM]: wasmResponse(EMPTY_MODULE) });
    expect(await dropDamagedOrtCopy([GLUE, WASM], storage)).toBe(true);
    expect(store.size).toBe(0);
  });

  it('keeps a sound copy: the failure had another cause, and an offline device needs it', async () => {
    const { storage, store } = memoryStorage({ [GLUE]: glueResponse(), [WASM]: wasmResponse(EMPTY_MODULE) });
    expect(await dropDamagedOrtCopy([GLUE, WASM], storage)).toBe(false);
    expect(store.size).toBe(2);
    expect(await dropDamagedOrtCopy([GLUE, WASM], memoryStorage().storage)).toBe(false);
  });
});
