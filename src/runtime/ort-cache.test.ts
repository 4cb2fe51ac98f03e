import { describe, expect, it } from 'vitest';
import { ORT_CACHE, keptOrtWasm } from './ort-cache.ts';

const GLUE_URL = 'https://app.test/assets/ort-wasm-simd-threaded-abc123.mjs';
const WASM_URL = 'https://app.test/assets/ort-wasm-simd-threaded-abc123.wasm';

/** The part of CacheStorage keptOrtWasm uses, over a map of cache name → url → body. */
function storageWith(caches: Record<string, Record<string, Uint8Array<ArrayBuffer>>>): CacheStorage {
  return {
    open: async (name: string) => {
      const entries = caches[name] ?? {};
      return {
        keys: async () => Object.keys(entries).map((url) => new Request(url)),
        match: async (request: Request) => {
          const body = entries[request.url];
          return body ? new Response(body) : undefined;
        },
      };
    },
  } as unknown as CacheStorage;
}

describe('keptOrtWasm', () => {
  it('reads the kept build\'s wasm, with the URL that names the build', async () => {
    const wasm = Uint8Array.from([0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0]);
    const kept = await keptOrtWasm(storageWith({ [ORT_CACHE]: { [GLUE_URL]: Uint8Array.of(1, 2), [WASM_URL]: wasm } }));
    expect(kept?.url).toBe(WASM_URL);
    expect(new Uint8Array(kept!.bytes)).toEqual(wasm);
  });

  it('has nothing to hand over when no wasm is kept: ORT fetches it', async () => {
    expect(await keptOrtWasm(storageWith({ [ORT_CACHE]: { [GLUE_URL]: Uint8Array.of(1) } }))).toBeUndefined();
    expect(await keptOrtWasm(storageWith({ elsewhere: { [WASM_URL]: Uint8Array.of(1) } }))).toBeUndefined();
  });

  it('falls back to ORT\'s own fetch when storage refuses or does not exist', async () => {
    const refusing = { open: () => Promise.reject(new DOMException('denied', 'SecurityError')) } as unknown as CacheStorage;
    expect(await keptOrtWasm(refusing)).toBeUndefined();
    // Node has no CacheStorage, like a page outside a secure context.
    expect(await keptOrtWasm()).toBeUndefined();
  });
});
