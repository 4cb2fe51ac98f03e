/**
 * Where a device keeps the ORT build it uses, for offline starts: one Cache Storage cache that
 * holds exactly that build's glue and wasm (workers/ort-offline.ts fills and prunes it; the
 * service worker serves from it, vite.config.ts).
 */
export const ORT_CACHE = 'lantern-ort';

/** The kept wasm: its URL names the build (content-hashed), its bytes are what ORT compiles. */
export interface KeptOrtWasm {
  url: string;
  bytes: ArrayBuffer;
}

/**
 * Reads the kept wasm, for ORT to compile instead of fetching it. Measured on warm starts of
 * this 14 MB file: ORT's streaming fetch, through the service worker or from the HTTP cache,
 * took ~450 ms before its compile could finish; reading the copy takes ~120 ms and compiling the
 * bytes another ~120 ms. The page starts this read while the worker's script loads and hands the
 * bytes over with init; the worker reads the copy itself when they are not its build's.
 * Undefined when nothing is kept yet (a first visit) or storage refuses: ORT then fetches.
 */
export async function keptOrtWasm(storage: CacheStorage | undefined = globalThis.caches): Promise<KeptOrtWasm | undefined> {
  if (!storage) return undefined;
  try {
    const cache = await storage.open(ORT_CACHE);
    const request = (await cache.keys()).find((r) => new URL(r.url).pathname.endsWith('.wasm'));
    const copy = request && (await cache.match(request));
    return copy ? { url: request.url, bytes: await copy.arrayBuffer() } : undefined;
  } catch {
    return undefined;
  }
}
