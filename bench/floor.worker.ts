/// <reference lib="webworker" />
/**
 * The floors Lantern is measured against, inside one worker with the same ORT build, thread
 * count and model bytes: a bare session.run on a ready tensor, tokenise + run, decode + run, and
 * a bare page↔worker echo (also answered after a set time of work). No scheduler and no comlink
 * on the timed paths.
 */
// Served under the app's CSP, which requires Trusted Types for script URLs (ORT's threads).
import '../src/trusted-types.ts';
import { expose } from 'comlink';
import { loadOrt, type Ort, type ort } from '../workers/ort.ts';
import { padBatch, TokenEncoder } from '../workers/text-preprocess.ts';
import type { TokenizerConfig } from '../src/runtime/model-config.ts';

let api: Ort | undefined;
let session: ort.InferenceSession | undefined;
let encoder: TokenEncoder | undefined;
let ready: Record<string, ort.Tensor> = {};

function textFeeds(text: string): Record<string, ort.Tensor> {
  const { ids, mask, length } = padBatch([encoder!.encode(text)], encoder!.padId);
  return { input_ids: new api!.Tensor('int64', ids, [1, length]), attention_mask: new api!.Tensor('int64', mask, [1, length]) };
}

async function run(feeds: Record<string, ort.Tensor>): Promise<void> {
  const out = await session!.run(feeds);
  for (const t of Object.values(out)) t.dispose();
}

/** Milliseconds of each of `n` iterations of `step(i)`, after `warmup` untimed ones. */
async function loop(warmup: number, n: number, step: (i: number) => Promise<void>): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await step(i);
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    await step(i);
    times.push(performance.now() - start);
  }
  return times;
}

const floor = {
  async load(onnx: ArrayBuffer, threads: number): Promise<void> {
    api = await loadOrt('wasm');
    api.env.wasm.numThreads = threads;
    api.env.logLevel = 'error';
    session = await api.InferenceSession.create(new Uint8Array(onnx), { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
  },
  /** Text: the same tokenizer code Lantern runs; `text` becomes the ready input of `raw`. */
  setTokenizer(tokenizer: object, config: TokenizerConfig, text: string): void {
    encoder = new TokenEncoder(tokenizer, config);
    ready = textFeeds(text);
  },
  setImageInput(name: string, tensor: Float32Array, dims: number[]): void {
    ready = { [name]: new api!.Tensor('float32', tensor, dims) };
  },
  /** session.run on a ready tensor. */
  raw: (warmup: number, n: number) => loop(warmup, n, () => run(ready)),
  /** Tokenise (cycling through `texts`) then run: the text floor. */
  tokeniseAndRun: (texts: string[], warmup: number, n: number) => loop(warmup, n, (i) => run(textFeeds(texts[i % texts.length]!))),
  /** The browser's decode of the image, then run on the ready tensor: the image floor. */
  decodeAndRun: (image: Blob, warmup: number, n: number) => loop(warmup, n, async () => {
    (await createImageBitmap(image)).close();
    await run(ready);
  }),
  /**
   * Answers every message on `port` with an empty one: the bare round-trip floor. A message
   * holding a number is answered only after the worker has been busy (spinning, not sleeping)
   * for that many milliseconds, as a worker running a request is: the page has been waiting
   * that long, which makes its wake-up dearer (see bench/main.ts).
   */
  echoOn(port: MessagePort): void {
    port.onmessage = ({ data }: MessageEvent<number | null>) => {
      if (typeof data === 'number') {
        const end = performance.now() + data;
        while (performance.now() < end);
      }
      port.postMessage(null);
    };
  },
};
export type FloorApi = typeof floor;
expose(floor);
