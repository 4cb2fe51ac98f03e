import type { AdapterSummary, Backend, BackendChoice, BackendPreference, BackendReason } from './backend.ts';
import type { SerializedError } from './errors.ts';
import type { Note } from './notes.ts';
import type { KeptOrtWasm } from './ort-cache.ts';
import type { Prediction } from './postprocess.ts';

/**
 * The page↔worker contract: every type that crosses the comlink boundary, and the worker's API.
 * The worker implements `InferenceWorkerApi` (workers/inference.worker.ts checks it with
 * `satisfies`); the page wraps it (worker-client.ts). Neither side imports the other.
 */

/** Raw RGBA pixels (an ImageData's, transferred without the ImageData wrapper). */
export interface RgbaPixels {
  data: Uint8ClampedArray;
  width: number;
  height: number;
}

/**
 * What the worker can decode: encoded bytes (Blob, ArrayBuffer), decoded images, or raw RGBA
 * pixels; anything else (an <img>, a canvas) is converted on the page first (inputs.ts).
 */
export type ImageSource = Blob | ArrayBuffer | ImageBitmap | VideoFrame | RgbaPixels;

export type ClassifyInput = { kind: 'text'; text: string } | { kind: 'image'; image: ImageSource };

/** Everything needed to run one model version; bytes come from the verified store. */
export interface ModelFiles {
  /** `id@version`: one session per key. */
  key: string;
  onnx: ArrayBuffer;
  config: unknown;
  preprocessor?: unknown;
  tokenizer?: unknown;
  tokenizerConfig?: unknown;
}

export interface DeviceReport {
  adapter: AdapterSummary;
  crossOriginIsolated: boolean;
  hardwareConcurrency: number;
  choice: BackendChoice;
  ortVersion: string;
}

export interface LoadReport {
  key: string;
  backend: Backend;
  reason: BackendReason;
  /** Set when the chosen backend failed and WASM took over. */
  fallback?: BackendReason;
  threads: number;
  createMs: number;
  /** The model's `unsure_below` (config.json): a lower top score is an unsure answer. */
  unsureBelow: number;
  inputNames: string[];
  outputNames: string[];
}

export interface ItemResult {
  predictions: Prediction[];
  notes: Note[];
  preprocessMs: number;
  /** Answered from the result cache (the model did not run for it). */
  cached: boolean;
}
export type ItemOutcome = { ok: true; value: ItemResult } | { ok: false; error: SerializedError };

export interface BatchReport {
  items: ItemOutcome[];
  backend: Backend;
  /** Set when this batch fell back to WASM at run time. */
  fallback?: BackendReason;
  batchSize: number;
  inferenceMs: number;
  postprocessMs: number;
}

/**
 * ORT's WebAssembly memory in one worker: its bytes; 'starting' before ORT has instantiated its
 * wasm there (the worker's first seconds, longer on a first visit's download); null when ORT did
 * but no memory was seen, or the worker stopped before answering.
 */
export type WasmMemoryReading = number | 'starting' | null;

/** The worker's API as the page calls it (comlink turns each result into a promise). */
export interface InferenceWorkerApi {
  /**
   * `threads` overrides the WASM thread count; otherwise the cores are split between `workers`.
   * `wasm`: the ORT wasm this device keeps (transferred), used if it is the chosen build's.
   * `onRuntimeDownload` (a comlink proxy): the decoded bytes of ORT's wasm as they arrive, when
   * none is kept.
   */
  init(preference: BackendPreference, workers: number, threads?: number, wasm?: KeptOrtWasm, onRuntimeDownload?: (loadedBytes: number) => void): Promise<DeviceReport>;
  load(files: ModelFiles): Promise<LoadReport>;
  /** `cache`: answer repeated inputs from the worker's in-memory result cache (opt-in per model). */
  classify(key: string, inputs: ClassifyInput[], k: number, cache?: boolean): Promise<BatchReport>;
  unload(key: string): Promise<void>;
  wasmMemory(): WasmMemoryReading;
}
