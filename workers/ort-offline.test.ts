import { describe, expect, it } from 'vitest';
import { ORT_CACHE, offlineWasm } from './ort-offline.ts';

const WASM_URL = 'https://app.test/assets/ort-wasm-simd-threaded-abc123.wasm';

/** The part of CacheStorage offlineWasm uses, over a map of cache name → url → body. */
function storageWith(caches: Record<string, Record<string, Uint8Array<ArrayBuffer>>>): CacheStorage {
  return {
    open: async (name: string) => ({
      match: async (url: string) => {
        const body = caches[name]?.[url];
        return body ? new Response(body) : undefined;
      },
    }),
  } as unknown as CacheStorage;
}

describe('offlineWasm', () => {
  it('reads the build\'s wasm from the offline copy', async () => {
    const wasm = Uint8Array.from([0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0]);
    const bytes = await offlineWasm(WASM_URL, storageWith({ [ORT_CACHE]: { [WASM_URL]: wasm } }));
    expect(new Uint8Array(bytes!)).toEqual(wasm);
  });

  it('has nothing to hand ORT without a copy of that very file: ORT fetches it', async () => {
    const other = { 'https://app.test/assets/ort-wasm-simd-threaded-old999.wasm': Uint8Array.of(1) };
    expect(await offlineWasm(WASM_URL, storageWith({ [ORT_CACHE]: other }))).toBeUndefined();
    expect(await offlineWasm(WASM_URL, storageWith({ elsewhere: { [WASM_URL]: Uint8Array.of(1) } }))).toBeUndefined();
  });

  it('falls back to ORT\'s own fetch when storage refuses or does not exist', async () => {
    const refusing = { open: () => Promise.reject(new DOMException('denied', 'SecurityError')) } as unknown as CacheStorage;
    expect(await offlineWasm(WASM_URL, refusing)).toBeUndefined();
    // Node has no CacheStorage, like a page outside a secure context.
    expect(await offlineWasm(WASM_URL)).toBeUndefined();
  });
});
