import { ort } from './ort.ts';
import { chooseBackend, probeAdapter, type AdapterSummary, type Backend, type BackendChoice, type BackendPreference, type BackendReason } from '../src/runtime/backend.ts';
import { DeviceLostError, InputError, LanternError, ModelLoadError, serializeError, type SerializedError } from '../src/runtime/errors.ts';
import { channelCount } from '../src/runtime/image-preprocess.ts';
import {
  describeSchemaError,
  ModelConfigSchema,
  PreprocessorConfigSchema,
  TokenizerConfigSchema,
  TokenizerJsonSchema,
  type ModelConfig,
  type PreprocessorConfig,
} from '../src/runtime/model-config.ts';
import type { Note } from '../src/runtime/notes.ts';
import { rankRow, type Prediction } from '../src/runtime/postprocess.ts';
import { padBatch, TokenEncoder, type EncodedText } from '../src/runtime/text-preprocess.ts';
import { prepareImage, type ImageSource } from './image-decode.ts';
import type { z } from 'zod';

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

export type ClassifyInput = { kind: 'text'; text: string } | { kind: 'image'; image: ImageSource };

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
  inputNames: string[];
  outputNames: string[];
}

export interface ItemResult {
  predictions: Prediction[];
  notes: Note[];
  preprocessMs: number;
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

type DeviceLost = Extract<BackendReason, { kind: 'device-lost' }>;

/** The loss in words, for the error's (diagnostic) message. */
const lostMessage = (lost: DeviceLost) => `The WebGPU device was lost (${lost.detail || 'no reason given'})`;

interface LoadedModel {
  key: string;
  files: ModelFiles;
  config: ModelConfig;
  preprocessor?: PreprocessorConfig;
  encoder?: TokenEncoder;
  session: ort.InferenceSession;
  backend: Backend;
  outputName: string;
}

/** ONNX bytes of `y = Identity(x)` (opset 13, 77 bytes), written with the onnx Python package. */
const WARM_UP_MODEL = Uint8Array.from(atob('CAcSB2xhbnRlcm46OgoQCgF4EgF5IghJZGVudGl0eRIEd2FybVoPCgF4EgoKCAgBEgQKAggBYg8KAXkSCgoICAESBAoCCAFCBAoAEA0='), (c) => c.charCodeAt(0));

function parse<T>(schema: z.ZodType<T>, value: unknown, file: string): T {
  const result = schema.safeParse(value);
  if (!result.success) throw new ModelLoadError(describeSchemaError(file, result.error), { file });
  return result.data;
}

/** Owns ORT's global state and the sessions. One engine per worker. */
export class InferenceEngine {
  private device?: DeviceReport;
  private warm?: Promise<void>;
  private readonly models = new Map<string, LoadedModel>();
  private gpuLost?: DeviceLost;
  private deviceLost?: Promise<DeviceLost>;

  /** `threads` overrides the WASM thread count (benchmarks); otherwise the cores are split between workers. */
  async init(preference: BackendPreference, workers = 1, threads?: number): Promise<DeviceReport> {
    if (this.device) return this.device;
    const adapter = await probeAdapter();
    const facts = { adapter, crossOriginIsolated: self.crossOriginIsolated, hardwareConcurrency: navigator.hardwareConcurrency };
    const chosen = chooseBackend(preference, facts, workers);
    const choice = threads && facts.crossOriginIsolated ? { ...chosen, threads } : chosen;
    // ORT reads these once, when its wasm starts: they must be set before the first session.
    ort.env.wasm.numThreads = choice.threads;
    ort.env.wasm.proxy = false;
    ort.env.logLevel = 'error';
    this.device = { adapter, crossOriginIsolated: facts.crossOriginIsolated, hardwareConcurrency: facts.hardwareConcurrency, choice, ortVersion: ort.env.versions.web ?? 'unknown' };
    this.warm = this.warmUp();
    return this.device;
  }

  /**
   * Starts ORT's wasm (download, compile, threads) as soon as the worker exists, so it overlaps
   * with the page opening the model store instead of following it. ORT has no init API: a
   * session on a one-node graph is the cheapest way to trigger it.
   */
  private async warmUp(): Promise<void> {
    try {
      const session = await ort.InferenceSession.create(WARM_UP_MODEL, { executionProviders: ['wasm'] });
      await session.release();
    } catch {
      // A real load reports the real error.
    }
  }

  private requireDevice(): DeviceReport {
    if (!this.device) throw new LanternError('The inference worker was used before init().');
    return this.device;
  }

  async load(files: ModelFiles): Promise<LoadReport> {
    const device = this.requireDevice();
    await this.warm;
    const existing = this.models.get(files.key);
    if (existing) return this.report(existing, 0);

    const config = parse(ModelConfigSchema, files.config, 'config.json');
    let preprocessor: PreprocessorConfig | undefined;
    let encoder: TokenEncoder | undefined;
    if (config.lantern.task === 'image-classification') {
      preprocessor = parse(PreprocessorConfigSchema, files.preprocessor, 'preprocessor_config.json');
    } else {
      const tokenizerJson = parse(TokenizerJsonSchema, files.tokenizer, 'tokenizer.json');
      const tokenizerConfig = parse(TokenizerConfigSchema, files.tokenizerConfig ?? {}, 'tokenizer_config.json');
      try {
        encoder = new TokenEncoder(tokenizerJson, tokenizerConfig);
      } catch (error) {
        throw new ModelLoadError(`tokenizer.json could not be loaded: ${(error as Error).message}`, { file: 'tokenizer.json' });
      }
    }

    const started = performance.now();
    let backend: Backend = this.gpuLost ? 'wasm' : device.choice.backend;
    let fallback: BackendReason | undefined;
    let session: ort.InferenceSession;
    try {
      session = await this.createSession(files.onnx, backend);
    } catch (error) {
      if (backend !== 'webgpu') throw new ModelLoadError(`The model could not be loaded: ${(error as Error).message}`, { key: files.key });
      fallback = { kind: 'webgpu-load-failed', detail: (error as Error).message };
      backend = 'wasm';
      try {
        session = await this.createSession(files.onnx, backend);
      } catch (wasmError) {
        throw new ModelLoadError(`The model could not be loaded: ${(wasmError as Error).message}`, { key: files.key });
      }
    }
    const outputName = config.lantern.output_name ?? session.outputNames[0];
    if (!outputName || !session.outputNames.includes(outputName)) {
      await session.release();
      throw new ModelLoadError(`The model has no output named "${outputName ?? ''}".`, { key: files.key });
    }
    const model: LoadedModel = { key: files.key, files, config, preprocessor, encoder, session, backend, outputName };
    this.models.set(files.key, model);
    return { ...this.report(model, performance.now() - started), ...(fallback ? { fallback } : {}) };
  }

  private report(model: LoadedModel, createMs: number): LoadReport {
    const device = this.requireDevice();
    return {
      key: model.key,
      backend: model.backend,
      reason: model.backend === device.choice.backend ? device.choice.reason : (this.gpuLost ?? { kind: 'webgpu-load-failed', detail: '' }),
      threads: device.choice.threads,
      createMs,
      inputNames: [...model.session.inputNames],
      outputNames: [...model.session.outputNames],
    };
  }

  private async createSession(bytes: ArrayBuffer, backend: Backend): Promise<ort.InferenceSession> {
    const session = await ort.InferenceSession.create(new Uint8Array(bytes), {
      executionProviders: [backend],
      graphOptimizationLevel: 'all',
    });
    if (backend === 'webgpu') await this.watchDevice();
    return session;
  }

  /** A lost GPU device (driver reset, `device.destroy()`) sends every later session to WASM. */
  private async watchDevice(): Promise<void> {
    const device = (await ort.env.webgpu.device) as { lost?: Promise<{ message?: string }> } | undefined;
    this.deviceLost = device?.lost?.then((info) => {
      this.gpuLost = { kind: 'device-lost', detail: info?.message ?? '' };
      return this.gpuLost;
    });
  }

  /**
   * Why a WebGPU run failed. A destroyed device fails the run (a buffer map) and resolves
   * `device.lost` in either order; give the loss a moment so the user sees the real cause.
   */
  private async gpuFailureReason(error: unknown): Promise<string> {
    const settle = new Promise<undefined>((resolve) => setTimeout(resolve, 100));
    const lost = this.gpuLost ?? (this.deviceLost ? await Promise.race([this.deviceLost, settle]) : undefined);
    return lost ? lostMessage(lost) : (error as Error).message;
  }

  /** Test hook for fault injection: destroys ORT's GPU device as a driver reset would. */
  async loseGpuDevice(): Promise<boolean> {
    const device = (await ort.env.webgpu.device) as { destroy?: () => void } | undefined;
    if (!device?.destroy) return false;
    device.destroy();
    return true;
  }

  async classify(key: string, inputs: ClassifyInput[], k: number): Promise<BatchReport> {
    const model = this.models.get(key);
    if (!model) throw new ModelLoadError(`Model ${key} is not loaded in this worker.`, { key });

    const items: ItemOutcome[] = [];
    const prepared: { index: number; tensor?: Float32Array; text?: EncodedText }[] = [];
    for (const [index, input] of inputs.entries()) {
      const started = performance.now();
      try {
        const notes: Note[] = [];
        if (model.config.lantern.task === 'image-classification') {
          if (input.kind !== 'image') throw new InputError('This model classifies images, not text.', { reason: 'wants-image' });
          const image = await prepareImage(input.image, model.preprocessor!);
          notes.push(...image.notes);
          prepared.push({ index, tensor: image.tensor });
        } else {
          if (input.kind !== 'text') throw new InputError('This model classifies text, not images.', { reason: 'wants-text' });
          if (typeof input.text !== 'string') throw new InputError('The text is not a string.', { reason: 'not-text' });
          const encoded = model.encoder!.encode(input.text);
          if (encoded.truncated) notes.push({ kind: 'truncated', maxTokens: model.encoder!.maxLength });
          prepared.push({ index, text: encoded });
        }
        items[index] = { ok: true, value: { predictions: [], notes, preprocessMs: performance.now() - started } };
      } catch (error) {
        items[index] = { ok: false, error: serializeError(error instanceof LanternError ? error : new InputError(`The input could not be prepared: ${(error as Error).message}`, { reason: 'unprepared' })) };
      }
    }

    let inferenceMs = 0;
    let postprocessMs = 0;
    let fallback: BackendReason | undefined;
    if (prepared.length > 0) {
      const groups = model.config.lantern.batch === 'fixed' ? prepared.map((p) => [p]) : [prepared];
      for (const group of groups) {
        const feeds = this.feeds(model, group);
        const started = performance.now();
        let output: ort.Tensor;
        try {
          output = await this.run(model, feeds);
        } catch (error) {
          if (model.backend !== 'webgpu') throw error;
          // Run-time fallback: rebuild the session on WASM and retry once.
          fallback = { kind: 'webgpu-run-failed', detail: await this.gpuFailureReason(error) };
          await this.moveToWasm(model);
          output = await this.run(model, feeds);
        }
        const afterRun = performance.now();
        inferenceMs += afterRun - started;
        const data = output.data as Float32Array;
        const width = data.length / group.length;
        group.forEach((p, row) => {
          const outcome = items[p.index];
          if (outcome?.ok) {
            outcome.value.predictions = rankRow(data.subarray(row * width, (row + 1) * width), {
              output: model.config.lantern.output,
              id2label: model.config.id2label,
              k,
              displayNames: model.config.lantern.display_names,
              localizedNames: model.config.lantern.localized_display_names,
            });
          }
        });
        output.dispose();
        postprocessMs += performance.now() - afterRun;
      }
    }
    return { items, backend: model.backend, batchSize: prepared.length, inferenceMs, postprocessMs, ...(fallback ? { fallback } : {}) };
  }

  private async run(model: LoadedModel, feeds: Record<string, ort.Tensor>): Promise<ort.Tensor> {
    if (model.backend === 'webgpu' && this.gpuLost) throw new DeviceLostError(lostMessage(this.gpuLost));
    const results = await model.session.run(feeds, [model.outputName]);
    const output = results[model.outputName];
    if (!output) throw new ModelLoadError(`The model returned no "${model.outputName}" output.`);
    return output;
  }

  private async moveToWasm(model: LoadedModel): Promise<void> {
    await model.session.release().catch(() => undefined);
    model.session = await this.createSession(model.files.onnx, 'wasm');
    model.backend = 'wasm';
  }

  private feeds(model: LoadedModel, group: { tensor?: Float32Array; text?: EncodedText }[]): Record<string, ort.Tensor> {
    const names = model.config.lantern.input_names ?? model.session.inputNames;
    if (model.encoder) {
      const { ids, mask, length } = padBatch(group.map((g) => g.text!), model.encoder.padId);
      const dims = [group.length, length];
      const feeds: Record<string, ort.Tensor> = {};
      for (const name of names) {
        if (name.includes('mask')) feeds[name] = new ort.Tensor('int64', mask, dims);
        else if (name.includes('type')) feeds[name] = new ort.Tensor('int64', new BigInt64Array(ids.length), dims);
        else feeds[name] = new ort.Tensor('int64', ids, dims);
      }
      return feeds;
    }
    const first = group[0]!.tensor!;
    const channels = channelCount(model.preprocessor!);
    const plane = first.length / channels;
    const { outHeight, outWidth } = this.imageShape(model, plane);
    const batch = new Float32Array(first.length * group.length);
    group.forEach((g, i) => batch.set(g.tensor!, i * first.length));
    return { [names[0]!]: new ort.Tensor('float32', batch, [group.length, channels, outHeight, outWidth]) };
  }

  private imageShape(model: LoadedModel, plane: number): { outHeight: number; outWidth: number } {
    const p = model.preprocessor!;
    const target = p.do_pad && p.pad_size ? p.pad_size : p.crop_size ?? ('height' in p.size ? p.size : undefined);
    if (target && target.height * target.width === plane) return { outHeight: target.height, outWidth: target.width };
    throw new InputError('The image could not be brought to the model\'s input size.', { reason: 'unprepared' });
  }

  async unload(key: string): Promise<void> {
    const model = this.models.get(key);
    this.models.delete(key);
    await model?.session.release();
  }

  loadedKeys(): string[] {
    return [...this.models.keys()];
  }
}
