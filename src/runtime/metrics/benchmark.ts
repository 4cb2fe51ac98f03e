import type { ClassificationResult, ClassifyInput, ClassifyOptions, ModelDescriptor } from '../lantern.ts';
import { Histogram } from './histogram.ts';

/**
 * "Benchmark this device": a fixed warm-up then N sequential runs per model on its built-in
 * samples, through the real classification path, so field leads compare phones on equal terms.
 * Sequential on purpose: it measures one request's latency, not the queue's.
 */
export const BENCHMARK = { warmup: 3, runs: 20 } as const;

export interface BenchmarkRow {
  modelId: string;
  backend: string;
  runs: number;
  errors: number;
  /** The first warm-up request: a cold start when the model was not loaded yet. */
  firstMs: number;
  p50: number;
  p95: number;
  mean: number;
  throughputPerSec: number;
}

export interface Classifier {
  classify(modelId: string, input: ClassifyInput, options?: ClassifyOptions): Promise<ClassificationResult>;
}

/** Fetches a model's built-in samples as classifier inputs. */
export async function sampleInputs(model: ModelDescriptor, fetcher: typeof fetch = fetch.bind(globalThis)): Promise<ClassifyInput[]> {
  return Promise.all(model.samples.map(async (s): Promise<ClassifyInput> => {
    const response = await fetcher(s.url);
    return s.kind === 'text' ? { kind: 'text', text: await response.text() } : { kind: 'image', image: await response.blob() };
  }));
}

export async function benchmarkModel(
  classifier: Classifier,
  modelId: string,
  inputs: ClassifyInput[],
  options: { warmup?: number; runs?: number; signal?: AbortSignal } = {},
): Promise<BenchmarkRow> {
  const warmup = options.warmup ?? BENCHMARK.warmup;
  const runs = options.runs ?? BENCHMARK.runs;
  if (inputs.length === 0) throw new RangeError(`Model ${modelId} has no samples to benchmark with.`);
  let firstMs = NaN;
  let backend = '';
  for (let i = 0; i < warmup; i++) {
    const started = performance.now();
    const result = await classifier.classify(modelId, inputs[i % inputs.length]!, { signal: options.signal });
    if (i === 0) firstMs = performance.now() - started;
    backend = result.backend;
  }
  const latency = new Histogram();
  let errors = 0;
  const started = performance.now();
  for (let i = 0; i < runs; i++) {
    options.signal?.throwIfAborted();
    const t0 = performance.now();
    try {
      backend = (await classifier.classify(modelId, inputs[i % inputs.length]!, { signal: options.signal })).backend;
      latency.record(performance.now() - t0);
    } catch (error) {
      if (options.signal?.aborted) throw error;
      errors++;
    }
  }
  const seconds = (performance.now() - started) / 1000;
  const { p50, p95 } = latency.percentiles();
  return { modelId, backend, runs, errors, firstMs, p50, p95, mean: latency.mean, throughputPerSec: seconds > 0 ? latency.count / seconds : NaN };
}
