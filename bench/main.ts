/**
 * Benchmark page. bench/run.ts opens it with `?engine=lantern|raw|tjs` and drives the
 * functions on `window.bench` with page.evaluate; everything is timed here, in the page,
 * with performance.now(), so every engine pays the same page↔worker costs.
 */
import { wrap } from 'comlink';
import { Lantern } from '../src/runtime/lantern.ts';
import { StaticModelSource } from './static-source.ts';
import type { RawOrtApi } from './raw-ort.worker.ts';
import type { TransformersApi } from './transformers.worker.ts';

const params = new URLSearchParams(location.search);
const threads = Number(params.get('threads') ?? 2);
const workers = Number(params.get('workers') ?? 1);

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}
export interface Summary { n: number; p50: number; p95: number; p99: number; mean: number; throughput?: number }
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

type Classify = (item: number) => Promise<string>;

let texts: string[] = [];
let image: Blob | undefined;

function lanternEngine(): { lantern: Lantern; classify: (model: string) => Classify } {
  const lantern = new Lantern({
    createWorker: (name) => new Worker(new URL('../workers/inference.worker.ts', import.meta.url), { type: 'module', name }),
    models: new StaticModelSource(new URL('/models/', location.origin).href),
    backend: 'wasm',
    poolSize: workers,
    threads: threads,
    maxQueued: 100_000,
    idleMs: 0,
  });
  return {
    lantern,
    classify: (model) => async (i) => {
      const input = model === 'spam-filter' ? { kind: 'text' as const, text: texts[i % texts.length]! } : { kind: 'image' as const, image: image! };
      return (await lantern.classify(model, input)).predictions[0]!.label;
    },
  };
}

const bench = {
  setTexts(list: string[]) {
    texts = list;
  },
  async setImage(url: string) {
    image = await (await fetch(url)).blob();
  },
  /** Sequential batch-1 latency through an engine, after warm-up. */
  async sequential(engine: 'lantern' | 'tjs', model: string, warmup: number, n: number): Promise<Summary> {
    const classify = await engineFor(engine, model);
    for (let i = 0; i < warmup; i++) await classify(i);
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      const start = performance.now();
      await classify(i);
      times.push(performance.now() - start);
    }
    return summarize(times);
  },
  /** Waves of `concurrency` simultaneous requests until `total` have been made. */
  async load(engine: 'lantern' | 'tjs', model: string, concurrency: number, total: number): Promise<Summary> {
    const classify = await engineFor(engine, model);
    // Same warm-up for every engine: enough for the JIT and both engines' caches to settle.
    for (let i = 0; i < 200; i++) await classify(i);
    const times: number[] = [];
    const started = performance.now();
    for (let done = 0; done < total; done += concurrency) {
      await Promise.all(Array.from({ length: Math.min(concurrency, total - done) }, async (_, j) => {
        const start = performance.now();
        await classify(done + j);
        times.push(performance.now() - start);
      }));
    }
    return summarize(times, performance.now() - started);
  },
  /** The floor: raw session.run in a worker, in-worker timing. */
  async raw(model: string, warmup: number, n: number): Promise<Summary> {
    const worker = wrap<RawOrtApi>(new Worker(new URL('./raw-ort.worker.ts', import.meta.url), { type: 'module', name: 'raw-ort' }));
    const source = new StaticModelSource(new URL('/models/', location.origin).href);
    const files = await source.files(model);
    await worker.load(files.onnx, threads);
    if (model === 'spam-filter') {
      // Same ids Lantern computes, from the same tokenizer code.
      const { TokenEncoder } = await import('../workers/text-preprocess.ts');
      const encoder = new TokenEncoder(files.tokenizer as object, (files.tokenizerConfig ?? {}) as Record<string, unknown>);
      await worker.setTextInput(encoder.encode(texts[0]!).ids);
    } else {
      const { PreprocessorConfigSchema } = await import('../src/runtime/model-config.ts');
      const { prepareImage } = await import('../workers/image-decode.ts');
      const prepared = await prepareImage(image!, PreprocessorConfigSchema.parse(files.preprocessor));
      await worker.setImageInput('input', prepared.tensor, [1, 3, prepared.plan.outHeight, prepared.plan.outWidth]);
    }
    await worker.loop(warmup);
    return summarize(await worker.loop(n));
  },
  /** Top labels for the first `count` texts: both engines must agree before we compare speed. */
  async labels(engine: 'lantern' | 'tjs', count: number): Promise<string[]> {
    const classify = await engineFor(engine, 'spam-filter');
    const out: string[] = [];
    for (let i = 0; i < count; i++) out.push(await classify(i));
    return out;
  },
  /** Navigation start → first result, for the start-up measurements. */
  async firstResult(engine: 'lantern' | 'tjs'): Promise<number> {
    const classify = await engineFor(engine, 'spam-filter');
    await classify(0);
    return performance.now();
  },
};

const engines = new Map<string, Classify>();
let lanternInstance: ReturnType<typeof lanternEngine> | undefined;
async function engineFor(engine: 'lantern' | 'tjs', model: string): Promise<Classify> {
  const key = `${engine}:${model}`;
  const existing = engines.get(key);
  if (existing) return existing;
  let classify: Classify;
  if (engine === 'lantern') {
    lanternInstance ??= lanternEngine();
    classify = lanternInstance.classify(model);
  } else {
    const worker = wrap<TransformersApi>(new Worker(new URL('./transformers.worker.ts', import.meta.url), { type: 'module', name: 'transformers' }));
    await worker.load(threads);
    classify = (i) => worker.classify(texts[i % texts.length]!);
  }
  engines.set(key, classify);
  return classify;
}

(globalThis as unknown as { bench: typeof bench }).bench = bench;
document.getElementById('status')!.dataset.ready = 'true';
