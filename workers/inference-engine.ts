import { InputError, LanternError, ModelLoadError, serializeError } from '../src/runtime/errors.ts';
import { DEFAULT_UNSURE_BELOW, RuntimeConfigSchema, scoreFunction, type RuntimeConfig, type ScoreFunction } from '../src/runtime/model-config.ts';
import { labelNamesOf, labelsOf, type LabelName } from '../src/runtime/labels.ts';
import { rankRow } from '../src/runtime/postprocess.ts';
import { cacheKey, ResultCache } from '../src/runtime/release/result-cache.ts';
import type { BackendPreference, BackendReason } from '../src/runtime/backend.ts';
import type { KeptOrtWasm } from '../src/runtime/ort-cache.ts';
import type { BatchReport, ClassifyInput, DeviceReport, ItemOutcome, LoadReport, ModelFiles } from '../src/runtime/protocol.ts';
import { Sessions, type SessionHandle, type SessionHost } from './sessions.ts';
import { batchKind, outputName } from './tasks/model-io.ts';
import { parseModelFile, taskFactory, type Task, type TaskAdapter } from './tasks/task.ts';

interface LoadedModel {
  key: string;
  config: RuntimeConfig;
  /** Each label's names for people, in label-index order. */
  names: LabelName[];
  scores: ScoreFunction;
  /** 'fixed': the graph takes one item at a time, so a batch runs item by item. */
  batch: 'fixed' | 'dynamic';
  task: Task;
  handle: SessionHandle;
  outputName: string;
}

/**
 * One engine per worker: loads model versions (config → task adapter → session) and runs batches
 * through them. Backends and device loss are the Sessions' business; what an input becomes is
 * the task's.
 */
export class InferenceEngine {
  private readonly models = new Map<string, LoadedModel>();
  /** Opt-in per model (the page says so with each batch); memory only. */
  private readonly results = new ResultCache();

  constructor(private readonly sessions: SessionHost = new Sessions()) {}

  /**
   * `threads` overrides the WASM thread count (benchmarks); otherwise the cores are split between
   * workers. `wasm`: the ORT wasm the page read from this device's copy.
   */
  init(preference: BackendPreference, workers = 1, threads?: number, wasm?: KeptOrtWasm, onRuntimeDownload?: (loadedBytes: number) => void): Promise<DeviceReport> {
    return this.sessions.init(preference, workers, threads, wasm, onRuntimeDownload);
  }

  async load(files: ModelFiles): Promise<LoadReport> {
    this.sessions.requireDevice();
    const existing = this.models.get(files.key);
    if (existing) return this.report(existing, 0);

    const config = parseModelFile(RuntimeConfigSchema, files.config, 'config.json');
    const makeTask = taskFactory(config, files);
    const started = performance.now();
    const { handle, fallback } = await this.sessions.open(files.key, files.onnx);
    let model: LoadedModel;
    try {
      const session = handle.session;
      model = { key: files.key, config, names: labelNamesOf(config, labelsOf(config)), scores: scoreFunction(config), batch: config.lantern?.batch ?? batchKind(session), task: makeTask(session), handle, outputName: outputName(session, config) };
    } catch (error) {
      await this.sessions.close(handle);
      throw error instanceof ModelLoadError ? new ModelLoadError(error.message, { ...error.details, key: files.key }) : error;
    }
    this.models.set(files.key, model);
    return { ...this.report(model, performance.now() - started), ...(fallback ? { fallback } : {}) };
  }

  private report(model: LoadedModel, createMs: number): LoadReport {
    const device = this.sessions.requireDevice();
    return {
      key: model.key,
      backend: model.handle.backend,
      reason: this.sessions.reason(model.handle.backend),
      threads: device.choice.threads,
      createMs,
      unsureBelow: model.config.lantern?.unsure_below ?? DEFAULT_UNSURE_BELOW,
      inputNames: [...model.handle.session.inputNames],
      outputNames: [...model.handle.session.outputNames],
    };
  }

  /** `cache`: the model's result cache is on; when it is off, the version's entries are dropped. */
  async classify(key: string, inputs: ClassifyInput[], k: number, cache = false): Promise<BatchReport> {
    try {
      const model = this.models.get(key);
      if (!model) throw new ModelLoadError(`Model ${key} is not loaded in this worker.`, { key });
      if (!cache) this.results.dropVersion(key);
      // Narrowed by kind so each task's prepared items go back to that task's feeds.
      return model.task.kind === 'image' ? await this.classifyWith(model, model.task, inputs, k, cache) : await this.classifyWith(model, model.task, inputs, k, cache);
    } finally {
      // The frames and bitmaps that came with the batch are this worker's copies, and only it can
      // free them, whatever became of their item (read, refused, or never reached: a camera
      // stalls once too many frames are open).
      for (const input of inputs) if (input.kind === 'image' && 'close' in input.image) input.image.close();
    }
  }

  private async classifyWith<P>(model: LoadedModel, task: TaskAdapter<P>, inputs: ClassifyInput[], k: number, cache: boolean): Promise<BatchReport> {
    const items: ItemOutcome[] = [];
    const prepared: { index: number; item: P; cacheKey?: string }[] = [];
    for (const [index, input] of inputs.entries()) {
      const started = performance.now();
      try {
        const { item, notes } = await task.prepare(input);
        const key = cache ? await cacheKey(model.key, k, task.cacheBytes(item)) : undefined;
        const hit = key !== undefined ? this.results.get(key) : undefined;
        if (!hit) prepared.push({ index, item, ...(key !== undefined ? { cacheKey: key } : {}) });
        items[index] = { ok: true, value: { predictions: hit ?? [], notes, preprocessMs: performance.now() - started, cached: hit !== undefined } };
      } catch (error) {
        items[index] = { ok: false, error: serializeError(error instanceof LanternError ? error : new InputError(`The input could not be prepared: ${(error as Error).message}`, { reason: 'unprepared' })) };
      }
    }

    let inferenceMs = 0;
    let postprocessMs = 0;
    let fallback: BackendReason | undefined;
    const groups = model.batch === 'fixed' ? prepared.map((p) => [p]) : prepared.length > 0 ? [prepared] : [];
    for (const group of groups) {
      const feeds = task.feeds(group.map((p) => p.item));
      const started = performance.now();
      const run = await this.sessions.run(model.handle, feeds, model.outputName);
      fallback ??= run.fallback;
      const afterRun = performance.now();
      inferenceMs += afterRun - started;
      const data = run.output.data as Float32Array;
      const width = data.length / group.length;
      group.forEach((p, row) => {
        const outcome = items[p.index];
        if (outcome?.ok) {
          outcome.value.predictions = rankRow(data.subarray(row * width, (row + 1) * width), {
            scores: model.scores,
            id2label: model.config.id2label,
            k,
            names: model.names,
          });
          if (p.cacheKey !== undefined) this.results.set(p.cacheKey, model.key, outcome.value.predictions);
        }
      });
      run.output.dispose();
      task.recycle?.(group.map((p) => p.item), feeds);
      postprocessMs += performance.now() - afterRun;
    }
    return { items, backend: model.handle.backend, batchSize: prepared.length, inferenceMs, postprocessMs, ...(fallback ? { fallback } : {}) };
  }

  async unload(key: string): Promise<void> {
    const model = this.models.get(key);
    this.models.delete(key);
    this.results.dropVersion(key);
    if (model) await this.sessions.close(model.handle);
  }
}
