/// <reference lib="webworker" />
/**
 * The floor: a bare InferenceSession.run loop in a worker, same ORT build and thread count as
 * Lantern, inputs prepared once up front. No scheduling, messaging or pre/post-processing.
 */
import { expose } from 'comlink';
import { ort } from '../workers/ort.ts';

let session: ort.InferenceSession | undefined;
let feeds: Record<string, ort.Tensor> = {};

const api = {
  async load(bytes: ArrayBuffer, threads: number): Promise<void> {
    ort.env.wasm.numThreads = threads;
    ort.env.logLevel = 'error';
    session = await ort.InferenceSession.create(new Uint8Array(bytes), { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
  },
  setTextInput(ids: number[]): void {
    const dims = [1, ids.length];
    feeds = {
      input_ids: new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), dims),
      attention_mask: new ort.Tensor('int64', new BigInt64Array(ids.length).fill(1n), dims),
    };
  },
  setImageInput(name: string, tensor: Float32Array, dims: number[]): void {
    feeds = { [name]: new ort.Tensor('float32', tensor, dims) };
  },
  /** Runs `n` times and returns each run's milliseconds. */
  async loop(n: number): Promise<number[]> {
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      const start = performance.now();
      const out = await session!.run(feeds);
      times.push(performance.now() - start);
      for (const t of Object.values(out)) t.dispose();
    }
    return times;
  },
};
export type RawOrtApi = typeof api;
if (!self.name?.startsWith('em-pthread')) expose(api);
