/// <reference lib="webworker" />
import '../src/trusted-types.ts';
import '../src/runtime/zod-setup.ts';
import { expose } from 'comlink';
import { installErrorTransfer } from '../src/runtime/error-transfer.ts';
import { InferenceEngine } from './inference-engine.ts';
import { wasmMemoryBytes, watchWasmMemory } from './wasm-memory.ts';
import type { BackendPreference } from '../src/runtime/backend.ts';
import type { KeptOrtWasm } from '../src/runtime/ort-cache.ts';
import type { ClassifyInput, InferenceWorkerApi, ModelFiles } from '../src/runtime/protocol.ts';

// Before any session exists: ORT instantiates its wasm on the first one.
watchWasmMemory();
const engine = new InferenceEngine();

/**
 * Holds a Web Lock named after this worker for as long as it lives. The page queues for the
 * same lock: it is granted the moment this worker dies in any way (crash, self.close(),
 * out-of-memory kill), which no Worker event reports reliably.
 */
let alive: Promise<void> | undefined;
function holdAliveLock(): Promise<void> {
  alive ??= new Promise<void>((granted) => {
    void navigator.locks.request(`lantern-alive:${self.name}`, () => {
      granted();
      return new Promise<never>(() => undefined);
    });
  });
  return alive;
}

/** The page-facing API: implements the contract in src/runtime/protocol.ts. */
const api = {
  init: async (preference: BackendPreference, workers: number, threads?: number, wasm?: KeptOrtWasm, onRuntimeDownload?: (loadedBytes: number) => void) => {
    await holdAliveLock();
    return engine.init(preference, workers, threads, wasm, onRuntimeDownload);
  },
  load: (files: ModelFiles) => engine.load(files),
  classify: (key: string, inputs: ClassifyInput[], k: number, cache?: boolean) => engine.classify(key, inputs, k, cache),
  unload: (key: string) => engine.unload(key),
  wasmMemory: () => wasmMemoryBytes(),
} satisfies InferenceWorkerApi;

// ORT's threaded wasm starts its helper threads from this same bundled file (named
// "em-pthread…"); installing comlink there would replace ORT's own message handler.
if (!self.name?.startsWith('em-pthread')) {
  installErrorTransfer();
  expose(api);
}
