/**
 * Keeps the ORT build this device uses available offline. The service worker does not precache
 * ORT's glue and wasm (a device needs one of two builds; workers/ort.ts picks it): it serves
 * them cache-first from ORT_CACHE (vite.config.ts), and the inference worker puts them there
 * once its build has loaded. On a first visit no service worker controls the page yet, so the
 * worker's own download bypassed it; the copy comes from the HTTP cache (content-hashed files,
 * served immutable), not a second download. Later starts hand ORT the kept wasm's bytes
 * (src/runtime/ort-cache.ts), which is faster than fetching it even through the service worker.
 */
import { ORT_CACHE } from '../src/runtime/ort-cache.ts';
import type { OrtBuild } from './ort.ts';

/** ORT's glue and wasm files in the build (workers/ort.ts imports them as URLs). */
export const ORT_FILE = /\/assets\/ort-wasm-simd-threaded[^/]*\.(?:wasm|mjs)$/;

/**
 * Which of those files belong to which build, by the names the build gives them
 * (`[name]-[hash][ext]`; workers/ort.ts imports `ort-wasm-simd-threaded.*` for the WASM-only
 * build and `ort-wasm-simd-threaded.asyncify.*` for the WebGPU one). The build's offline list
 * (scripts/offline-files.ts) sizes a device's download with these, and fails if one no longer
 * matches exactly its glue and its wasm.
 */
export const ORT_BUILD_FILES = {
  wasm: /\/assets\/ort-wasm-simd-threaded-[\w-]+\.(?:wasm|mjs)$/,
  webgpu: /\/assets\/ort-wasm-simd-threaded\.asyncify-[\w-]+\.(?:wasm|mjs)$/,
} as const satisfies Record<OrtBuild, RegExp>;

const isWasm = (url: string) => new URL(url).pathname.endsWith('.wasm');

/**
 * `response` if it can be ORT's file at `request.url` (the wasm or JavaScript it must be), else
 * null. A captive portal answers any URL with its own HTML page and status 200; kept, that page
 * would break every later start. The one check for both writers of the ORT cache: the worker
 * (below) and the service worker's ORT route, whose `cacheWillUpdate` this is (vite.config.ts).
 * Workbox writes it into sw.js from its source, so it uses no module-level names.
 */
export async function ortFileOrNull({ request, response }: { request: { url: string }; response: Response }): Promise<Response | null> {
  const type = response.headers.get('Content-Type') ?? '';
  const wasm = new URL(request.url).pathname.endsWith('.wasm');
  return response.status === 200 && (wasm ? type.startsWith('application/wasm') : type.includes('javascript')) ? response : null;
}

/**
 * Puts `urls` into the ORT cache unless already there, and removes every other entry (an older
 * version's build, or the build this device does not use): one ORT copy per device. A response
 * that is not the file is not kept (the next start tries again).
 */
export async function keepOrtOffline(urls: readonly string[], storage: CacheStorage = self.caches): Promise<void> {
  const cache = await storage.open(ORT_CACHE);
  await Promise.all(urls.map(async (url) => {
    if (await cache.match(url)) return;
    const response = await ortFileOrNull({ request: { url }, response: await fetch(url, { cache: 'force-cache' }) });
    if (response) await cache.put(url, response);
  }));
  for (const request of await cache.keys()) {
    if (!urls.includes(request.url)) await cache.delete(request);
  }
}

/**
 * Called after ORT failed to start: drops the kept copy of the build at `urls` when it is
 * damaged (a wasm that does not validate, an interrupted write; a file of the wrong type), so
 * the next start downloads the build again instead of failing the same way for good, offline or
 * not (the service worker serves ORT from this copy too). A sound copy stays: the failure had
 * another cause, and an offline device needs it. Returns whether the copy was dropped.
 */
export async function dropDamagedOrtCopy(urls: readonly string[], storage: CacheStorage = self.caches): Promise<boolean> {
  const cache = await storage.open(ORT_CACHE);
  const damaged = await Promise.all(urls.map(async (url) => {
    const kept = await cache.match(url);
    if (!kept) return false;
    if (!(await ortFileOrNull({ request: { url }, response: kept }))) return true;
    return isWasm(url) && !WebAssembly.validate(await kept.arrayBuffer());
  }));
  if (!damaged.includes(true)) return false;
  await Promise.all(urls.map((url) => cache.delete(url)));
  return true;
}
