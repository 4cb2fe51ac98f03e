/// <reference lib="webworker" />
/**
 * The usual choice: a transformers.js pipeline() in a worker, called once per request or with a
 * list (its own batching), loading its own (nested) onnxruntime-web wasm from this origin
 * instead of its default CDN.
 */
// Served under the app's CSP, which requires Trusted Types for script URLs (ORT's threads).
import '../src/trusted-types.ts';
import { expose } from 'comlink';
import { env, pipeline, type TextClassificationPipeline } from '@huggingface/transformers';
import wasmUrl from '../node_modules/@huggingface/transformers/node_modules/onnxruntime-web/dist/ort-wasm-simd-threaded.asyncify.wasm?url';
import mjsUrl from '../node_modules/@huggingface/transformers/node_modules/onnxruntime-web/dist/ort-wasm-simd-threaded.asyncify.mjs?url';

let classifier: TextClassificationPipeline | undefined;

const api = {
  async load(threads: number): Promise<void> {
    env.allowRemoteModels = false;
    env.allowLocalModels = true;
    // A path, not a URL: transformers.js skips its local-file checks for http(s) URLs.
    env.localModelPath = '/models-hf/';
    // Its wasm cache re-imports ORT's loader from a blob: URL, which a strict CSP (ours) refuses;
    // the HTTP cache still keeps the wasm between visits.
    env.useWasmCache = false;
    const wasm = env.backends.onnx.wasm!;
    wasm.wasmPaths = { wasm: new URL(wasmUrl, self.location.origin).href, mjs: new URL(mjsUrl, self.location.origin).href };
    wasm.numThreads = threads;
    classifier = (await pipeline('text-classification', 'spam-filter', { dtype: 'q8', device: 'wasm' })) as TextClassificationPipeline;
  },
  async classify(text: string): Promise<string> {
    const out = await classifier!(text, { top_k: 1 });
    const first = (Array.isArray(out) ? out[0] : out) as { label: string };
    return first.label;
  },
  /** transformers.js' own batching: the pipeline given a list of texts (padded to the longest). */
  async classifyMany(texts: string[]): Promise<string[]> {
    const out = (await classifier!(texts, { top_k: 1 })) as unknown as ({ label: string } | { label: string }[])[];
    return out.map((o) => (Array.isArray(o) ? o[0]! : o).label);
  },
};
export type TransformersApi = typeof api;
if (!self.name?.startsWith('em-pthread')) expose(api);
