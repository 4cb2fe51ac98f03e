import { describe, expect, it } from 'vitest';
import { wasmMemoryBytes, watchWasmMemory } from './wasm-memory.ts';

const EMPTY_MODULE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]);
/** The smallest module that exports a memory of one 64 KiB page: (module (memory (export "m") 1)). */
const EXPORTS_MEMORY = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 5, 3, 1, 0, 1, 7, 5, 1, 1, 109, 2, 0]);

describe('wasmMemoryBytes', () => {
  it('says the worker is starting until wasm is instantiated, then counts its memory', async () => {
    watchWasmMemory();
    expect(wasmMemoryBytes()).toBe('starting');
    // Instantiated, but no memory in sight: nothing to report, and no longer starting.
    await WebAssembly.instantiate(EMPTY_MODULE);
    expect(wasmMemoryBytes()).toBeNull();
    const { instance } = await WebAssembly.instantiate(EXPORTS_MEMORY);
    expect(wasmMemoryBytes()).toBe(65_536);
    (instance.exports.m as WebAssembly.Memory).grow(1);
    expect(wasmMemoryBytes()).toBe(131_072);
  });
});
