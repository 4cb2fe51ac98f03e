/// <reference lib="webworker" />
import { expose } from 'comlink';
import { installErrorTransfer } from '../src/runtime/error-transfer.ts';
import { InferenceEngine, type ClassifyInput, type ModelFiles } from './inference-engine.ts';
import type { BackendPreference } from '../src/runtime/backend.ts';

const engine = new InferenceEngine();

/** The page-facing API. Its type (InferenceWorkerApi) is the one contract with the page. */
const api = {
  init: (preference: BackendPreference, workers: number) => engine.init(preference, workers),
  load: (files: ModelFiles) => engine.load(files),
  classify: (key: string, inputs: ClassifyInput[], k: number) => engine.classify(key, inputs, k),
  unload: (key: string) => engine.unload(key),
  loaded: () => engine.loadedKeys(),
  /** Fault injection for tests: lose the GPU device, or die like an OOM-killed worker. */
  loseGpuDevice: () => engine.loseGpuDevice(),
  crash: (): void => {
    setTimeout(() => self.close(), 0);
  },
};

export type InferenceWorkerApi = typeof api;

// ORT's threaded wasm starts its helper threads from this same bundled file (named
// "em-pthread…"); installing comlink there would replace ORT's own message handler.
if (!self.name?.startsWith('em-pthread')) {
  installErrorTransfer();
  expose(api);
}
