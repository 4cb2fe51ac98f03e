/**
 * The one place that picks the onnxruntime-web build, once per worker, after the adapter probe:
 * devices without a WebGPU adapter load the WASM-only build (14 MB wasm, 2.3 MB brotli), the
 * others the WebGPU build (27 MB, it also runs the WASM provider for fallback). A device only
 * ever downloads the build it uses; both are in the bundle as separate chunks and files.
 *
 * ORT is imported in its "extern wasm" form (vite.config.ts sets the resolve condition): its
 * Emscripten glue is a small file of its own, loaded from `wasmPaths.mjs`, so ORT's helper
 * threads start from that file instead of re-evaluating the whole worker bundle.
 */
import type * as OrtApi from 'onnxruntime-web';
import cpuGlue from 'onnxruntime-web/ort-wasm-simd-threaded.mjs?url';
import cpuWasm from 'onnxruntime-web/ort-wasm-simd-threaded.wasm?url';
import gpuGlue from 'onnxruntime-web/ort-wasm-simd-threaded.asyncify.mjs?url';
import gpuWasm from 'onnxruntime-web/ort-wasm-simd-threaded.asyncify.wasm?url';
import { LanternError } from '../src/runtime/errors.ts';
import { keptOrtWasm, type KeptOrtWasm } from '../src/runtime/ort-cache.ts';

/** ORT's types (InferenceSession, Tensor, …); the values come from `ortApi()`. */
export type * as ort from 'onnxruntime-web';
export type Ort = typeof OrtApi;
export type OrtBuild = 'wasm' | 'webgpu';

const BUILDS: Record<OrtBuild, { load: () => Promise<Ort>; glue: string; wasm: string }> = {
  wasm: { load: () => import('onnxruntime-web/wasm'), glue: cpuGlue, wasm: cpuWasm },
  webgpu: { load: () => import('onnxruntime-web/webgpu'), glue: gpuGlue, wasm: gpuWasm },
};

let loaded: Ort | undefined;
/** ORT was handed this device's kept copy of its wasm (rather than downloading it). */
let fromKeptCopy = false;

/**
 * Loads the build (once) and points it at its own glue and wasm files, handing it the wasm's
 * bytes when this device keeps a copy of this build: `kept`, read by the page while this worker
 * started, or else read here while ORT's code is imported.
 */
export async function loadOrt(build: OrtBuild, kept?: KeptOrtWasm): Promise<Ort> {
  if (loaded) return loaded;
  const [glue, wasm] = ortFiles(build);
  // ORT imports its glue only when its wasm starts; importing it now (the same module, so ORT's
  // import finds it loaded) overlaps that fetch with the import of ORT's own code. Only an
  // optimisation: if it fails, ORT's own import reports why.
  const glueLoaded = import(/* @vite-ignore */ glue).catch(() => undefined);
  const [api, copy] = await Promise.all([BUILDS[build].load(), kept ?? keptOrtWasm(), glueLoaded]);
  api.env.wasm.wasmPaths = { mjs: glue, wasm };
  // The cache keeps one build: another build's copy (the adapter changed) is left to the pruning.
  if (copy?.url === wasm) api.env.wasm.wasmBinary = copy.bytes;
  fromKeptCopy = copy?.url === wasm;
  loaded = api;
  return api;
}

/** How often, at most, a download reports its progress. */
const PROGRESS_EVERY_MS = 250;

/**
 * Downloads the build's wasm for ORT when no copy is kept (a first visit), reporting the decoded
 * bytes as they arrive: ORT's own streaming fetch says nothing until it is done, and on a slow
 * link that is most of a first visit's wait, which the page shows as a number that does not move.
 * ORT then compiles the bytes once they are all here instead of while they arrive: ~0.2 s, once.
 */
export async function downloadWasm(build: OrtBuild, onBytes: (loadedBytes: number) => void): Promise<void> {
  if (fromKeptCopy) return;
  const api = ortApi();
  const [, wasm] = ortFiles(build);
  const response = await fetch(wasm);
  if (!response.ok || !response.body) throw new LanternError(`ONNX Runtime's wasm could not be downloaded (HTTP ${response.status}).`);
  let loadedBytes = 0;
  let reportedAt = 0;
  const counted = response.body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      loadedBytes += chunk.byteLength;
      if (performance.now() - reportedAt >= PROGRESS_EVERY_MS) {
        reportedAt = performance.now();
        onBytes(loadedBytes);
      }
      controller.enqueue(chunk);
    },
  }));
  api.env.wasm.wasmBinary = await new Response(counted).arrayBuffer();
  onBytes(loadedBytes);
}

/**
 * Frees the wasm bytes handed to ORT, once its wasm has started. ORT's glue keeps them referenced
 * for the worker's lifetime although the compiled module holds its own copy; detaching the buffer
 * gives back 14 MB (27 MB for the WebGPU build) per worker.
 */
export function releaseWasmBinary(): void {
  const bytes = loaded?.env.wasm.wasmBinary;
  if (bytes instanceof ArrayBuffer) structuredClone(bytes, { transfer: [bytes] });
}

/** Whether ORT was handed this device's kept copy of its wasm (rather than downloading it). */
export function startedFromKeptCopy(): boolean {
  return fromKeptCopy;
}

/** The loaded build; callers run after `loadOrt` (the engine's init). */
export function ortApi(): Ort {
  if (!loaded) throw new LanternError('The inference worker used ORT before init().');
  return loaded;
}

/** Absolute URLs of a build's glue and wasm: what the page keeps for offline use. */
export function ortFiles(build: OrtBuild): [glue: string, wasm: string] {
  const { glue, wasm } = BUILDS[build];
  return [new URL(glue, self.location.href).href, new URL(wasm, self.location.href).href];
}
