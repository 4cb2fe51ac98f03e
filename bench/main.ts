/**
 * Benchmark page. bench/run.ts opens it and drives `window.bench` with page.evaluate; all timing
 * happens here, in the page, with performance.now(), so every engine pays the same page↔worker
 * costs. One page hosts one engine and stays open across repetitions (warm).
 */
// Served under the app's CSP, which requires Trusted Types for script URLs (the workers).
import '../src/trusted-types.ts';
import { wrap, transfer } from 'comlink';
import { Lantern, type ClassificationResult } from '../src/runtime/lantern.ts';
import { PreprocessorConfigSchema } from '../src/runtime/model-config.ts';
import { prepareImage } from '../workers/image-decode.ts';
import { StaticModelSource } from './static-source.ts';
import type { FloorApi } from './floor.worker.ts';
import type { TransformersApi } from './transformers.worker.ts';

const params = new URLSearchParams(location.search);
const threads = Number(params.get('threads') ?? 2);
const backlogWorkers = params.get('backlogWorkers');

export interface Summary { n: number; p50: number; p95: number; p99: number; mean: number; throughput?: number }
export interface Stages { queue: number; preprocess: number; inference: number; postprocess: number; total: number; batch: number }

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}
function summarize(times: number[], wallMs?: number): Summary {
  const sorted = [...times].sort((a, b) => a - b);
  return {
    n: times.length,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    mean: times.reduce((a, b) => a + b, 0) / Math.max(1, times.length),
    ...(wallMs ? { throughput: (times.length / wallMs) * 1000 } : {}),
  };
}
const median = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 50);

let texts: string[] = [];
let image: Blob | undefined;
const source = new StaticModelSource(new URL('/models/', location.origin).href);

let lantern: Lantern | undefined;
function lanternInstance(): Lantern {
  lantern ??= Lantern.create({
    models: source,
    // Plain files, not the signed store: the benchmark measures inference, not verification.
    allowUnsigned: true,
    backend: 'wasm',
    threads,
    ...(backlogWorkers !== null ? { backlogWorkers: Number(backlogWorkers) } : {}),
    maxQueued: 100_000,
    idleMs: 0,
  });
  return lantern;
}
function lanternRequest(model: string, i: number): Promise<ClassificationResult> {
  const input = model === 'spam-filter' ? { kind: 'text' as const, text: texts[i % texts.length]! } : { kind: 'image' as const, image: image! };
  return lanternInstance().classify(model, input);
}

let tjs: ReturnType<typeof wrap<TransformersApi>> | undefined;
async function transformers() {
  if (!tjs) {
    tjs = wrap<TransformersApi>(new Worker(new URL('./transformers.worker.ts', import.meta.url), { type: 'module', name: 'transformers' }));
    await tjs.load(threads);
  }
  return tjs;
}

let floorWorker: ReturnType<typeof wrap<FloorApi>> | undefined;
let echoPort: MessagePort | undefined;

/** Runs `total` requests keeping `inFlight` of them outstanding (a sliding window, not waves). */
async function slidingWindow(inFlight: number, total: number, request: (i: number) => Promise<unknown>): Promise<Summary> {
  const times: number[] = [];
  let next = 0;
  const started = performance.now();
  const lane = async () => {
    while (next < total) {
      const i = next++;
      const start = performance.now();
      await request(i);
      times.push(performance.now() - start);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
  return summarize(times, performance.now() - started);
}

const bench = {
  setTexts(list: string[]) {
    texts = list;
  },
  /** The image requests send; with `size`, the picture redrawn at that size as a JPEG (a phone photo's). */
  async setImage(url: string, size?: { width: number; height: number }) {
    image = await (await fetch(url)).blob();
    if (!size) return;
    const canvas = new OffscreenCanvas(size.width, size.height);
    canvas.getContext('2d')!.drawImage(await createImageBitmap(image), 0, 0, size.width, size.height);
    image = await canvas.convertToBlob({ type: 'image/jpeg', quality: 0.9 });
  },

  /**
   * Floors in one worker: bare echo, raw run, and tokenise+run or decode+run. Then `busyEcho`:
   * an echo the worker answers only after being busy for the floor's p50, less that time. A page
   * that has waited ~150 µs or more pays a dearer wake-up (Chromium 156 on this VM: 45–50 µs
   * round trip after 0–100 µs of work, 115–125 µs after 150–500 µs), and every real request
   * waits that long; it explains transit, the targets still count the bare echo.
   */
  async floors(model: string, warmup: number, n: number): Promise<{ echo: Summary; raw: Summary; floor: Summary; busyEcho: Summary }> {
    if (!floorWorker) {
      floorWorker = wrap<FloorApi>(new Worker(new URL('./floor.worker.ts', import.meta.url), { type: 'module', name: 'floor' }));
      const files = await source.files(model);
      await floorWorker.load(transfer(files.onnx, [files.onnx]), threads);
      if (model === 'spam-filter') {
        await floorWorker.setTokenizer(files.tokenizer as object, (files.tokenizerConfig ?? {}) as Record<string, unknown>, texts[0]!);
      } else {
        const prepared = await prepareImage(image!, PreprocessorConfigSchema.parse(files.preprocessor));
        await floorWorker.setImageInput('input', prepared.tensor, [1, 3, prepared.plan.outHeight, prepared.plan.outWidth]);
      }
      const channel = new MessageChannel();
      await floorWorker.echoOn(transfer(channel.port2, [channel.port2]));
      echoPort = channel.port1;
    }
    const port = echoPort!;
    /** Round trips (ms) of `warmup + n` echoes after `busyMs` of work each, less that work. */
    const echoes = async (busyMs: number | null): Promise<number[]> => {
      const times: number[] = [];
      for (let i = 0; i < warmup + n; i++) {
        const start = performance.now();
        await new Promise<void>((resolve) => {
          port.onmessage = () => resolve();
          port.postMessage(busyMs);
        });
        if (i >= warmup) times.push(performance.now() - start - (busyMs ?? 0));
      }
      return times;
    };
    const echo = summarize(await echoes(null));
    const raw = await floorWorker.raw(warmup, n);
    const floor = summarize(model === 'spam-filter' ? await floorWorker.tokeniseAndRun(texts, warmup, n) : await floorWorker.decodeAndRun(image!, warmup, n));
    return { echo, raw: summarize(raw), floor, busyEcho: summarize(await echoes(floor.p50)) };
  },

  /** Lantern batch-1, one request at a time, with the per-stage medians it reports itself. */
  async lanternSequential(model: string, warmup: number, n: number): Promise<{ summary: Summary; stages: Stages }> {
    for (let i = 0; i < warmup; i++) await lanternRequest(model, i);
    const times: number[] = [];
    const results: ClassificationResult[] = [];
    for (let i = 0; i < n; i++) {
      const start = performance.now();
      results.push(await lanternRequest(model, i));
      times.push(performance.now() - start);
    }
    return { summary: summarize(times), stages: stagesOf(results) };
  },

  /** Lantern under a sliding window of `inFlight` requests. */
  async lanternWindow(model: string, inFlight: number, total: number): Promise<{ summary: Summary; stages: Stages }> {
    const results: ClassificationResult[] = [];
    const summary = await slidingWindow(inFlight, total, async (i) => results.push(await lanternRequest(model, i)));
    return { summary, stages: stagesOf(results) };
  },

  /** ORT's wasm memory of each running Lantern worker (MB): what a busier pool costs. */
  async workerMemory(): Promise<number[]> {
    return (await lanternInstance().workerMemory()).map((bytes) => (typeof bytes === 'number' ? bytes : 0) / 2 ** 20);
  },

  /** transformers.js pipeline, one call per request, under a sliding window. */
  async tjsWindow(inFlight: number, total: number): Promise<Summary> {
    const worker = await transformers();
    return slidingWindow(inFlight, total, (i) => worker.classify(texts[i % texts.length]!));
  },

  /** transformers.js pipeline given `size` texts as one list, one list at a time: per-item rate, per-call latency. */
  async tjsArrays(size: number, calls: number): Promise<Summary> {
    const worker = await transformers();
    const times: number[] = [];
    const started = performance.now();
    for (let c = 0; c < calls; c++) {
      const list = Array.from({ length: size }, (_, j) => texts[(c * size + j) % texts.length]!);
      const start = performance.now();
      await worker.classifyMany(list);
      times.push(performance.now() - start);
    }
    const wall = performance.now() - started;
    return { ...summarize(times), throughput: (size * calls / wall) * 1000 };
  },

  /** Top labels for the texts, to check that the engines agree before comparing speed. */
  async labels(engine: 'lantern' | 'tjs'): Promise<string[]> {
    if (engine === 'tjs') return (await transformers()).classifyMany(texts);
    return Promise.all(texts.map(async (_, i) => (await lanternRequest('spam-filter', i)).predictions[0]!.label));
  },

  /** Navigation start → first transformers.js result (start-up measurements). */
  async tjsFirstResult(text: string): Promise<number> {
    await (await transformers()).classify(text);
    return performance.now();
  },
};

function stagesOf(results: ClassificationResult[]): Stages {
  const of = (pick: (r: ClassificationResult) => number) => median(results.map(pick));
  return {
    queue: of((r) => r.timings.queueMs),
    preprocess: of((r) => r.timings.preprocessMs),
    inference: of((r) => r.timings.inferenceMs),
    postprocess: of((r) => r.timings.postprocessMs),
    total: of((r) => r.timings.totalMs),
    batch: of((r) => r.batchSize),
  };
}

export type BenchApi = typeof bench;
(globalThis as unknown as { bench: BenchApi }).bench = bench;
document.getElementById('status')!.dataset.ready = 'true';
