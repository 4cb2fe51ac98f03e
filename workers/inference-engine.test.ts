import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { BackendReason } from '../src/runtime/backend.ts';
import { ModelLoadError } from '../src/runtime/errors.ts';
import type { DeviceReport, ModelFiles } from '../src/runtime/protocol.ts';
import { InferenceEngine } from './inference-engine.ts';
import { loadOrt, ortApi, type ort } from './ort.ts';
import type { SessionHandle, SessionHost } from './sessions.ts';

/**
 * The engine with its real task adapters and tokenizer, over a fake session layer: what it
 * feeds is recorded, and each row's logits favour the label the test chose.
 */
// The tasks build real ORT tensors: load the WASM build's API (no session is ever created here).
beforeAll(async () => {
  vi.stubGlobal('self', { location: { href: 'http://127.0.0.1/' } });
  await loadOrt('wasm');
  vi.unstubAllGlobals();
});

const SPAM = join(import.meta.dirname, '../models/spam-filter');
const json = (file: string): unknown => JSON.parse(readFileSync(join(SPAM, file), 'utf8'));

type Meta = { name: string; type: string };
const DEVICE: DeviceReport = {
  adapter: { available: false, isFallbackAdapter: false, vendor: '', architecture: '' },
  crossOriginIsolated: true, hardwareConcurrency: 2, choice: { backend: 'wasm', threads: 2, reason: { kind: 'no-adapter', problem: { kind: 'no-webgpu' } } }, ortVersion: 'test',
};

class FakeSessions implements SessionHost {
  readonly runs: Record<string, { type: string; dims: readonly number[]; data: readonly (number | bigint)[] }>[] = [];
  released = 0;
  /** Label index each row should win, per run. */
  winner = 1;
  fallback?: BackendReason;
  /** The element type the session's metadata gives its outputs. */
  outputType = 'float32';

  constructor(private readonly inputs: Meta[], private readonly outputs = ['logits']) {}

  init(): Promise<DeviceReport> {
    return Promise.resolve(DEVICE);
  }
  requireDevice(): DeviceReport {
    return DEVICE;
  }
  reason(): BackendReason {
    return { kind: 'no-adapter', problem: { kind: 'no-webgpu' } };
  }
  open(_key: string, onnx: ArrayBuffer): Promise<{ handle: SessionHandle; fallback?: BackendReason }> {
    const session = {
      inputNames: this.inputs.map((i) => i.name),
      outputNames: this.outputs,
      inputMetadata: this.inputs.map((i) => ({ name: i.name, isTensor: true, type: i.type, shape: [] })),
      outputMetadata: this.outputs.map((name) => ({ name, isTensor: true, type: this.outputType, shape: [] })),
      release: () => {
        this.released++;
        return Promise.resolve();
      },
    } as unknown as ort.InferenceSession;
    return Promise.resolve({ handle: { session, backend: 'wasm', onnx, lane: { turn: Promise.resolve() } } });
  }
  close(handle: SessionHandle): Promise<void> {
    return handle.session.release();
  }
  run(_handle: SessionHandle, feeds: Record<string, ort.Tensor>): Promise<{ output: ort.Tensor; fallback?: BackendReason }> {
    this.runs.push(Object.fromEntries(Object.entries(feeds).map(([name, t]) => [name, { type: t.type, dims: t.dims, data: Array.from(t.data as ArrayLike<number | bigint>) }])));
    const rows = Object.values(feeds)[0]!.dims[0]!;
    const logits = new Float32Array(rows * 2).map((_, i) => (i % 2 === this.winner ? 5 : 0));
    return Promise.resolve({ output: new (ortApi().Tensor)('float32', logits, [rows, 2]), ...(this.fallback ? { fallback: this.fallback } : {}) });
  }
}

const spamFiles = (config: object = json('config.json') as object): ModelFiles => ({
  key: 'spam-filter@1.0.0', onnx: new ArrayBuffer(8), config, tokenizer: json('tokenizer.json'), tokenizerConfig: json('tokenizer_config.json'),
});
const withoutNames = () => {
  const config = json('config.json') as { lantern: Record<string, unknown> };
  delete config.lantern.input_names;
  delete config.lantern.output_name;
  return config;
};

async function engineWith(inputs: Meta[], files = spamFiles(), outputs?: string[]) {
  const sessions = new FakeSessions(inputs, outputs);
  const engine = new InferenceEngine(sessions);
  await engine.init('auto');
  return { engine, sessions, report: await engine.load(files) };
}

const INT64 = 'int64';

describe('InferenceEngine (text)', () => {
  it('feeds ids, mask and zero type ids by their hub names, padded to the longest text', async () => {
    const { engine, sessions } = await engineWith(
      [{ name: 'input_ids', type: INT64 }, { name: 'token_type_ids', type: INT64 }, { name: 'attention_mask', type: INT64 }],
      spamFiles(withoutNames()),
    );
    const batch = await engine.classify('spam-filter@1.0.0', [{ kind: 'text', text: 'win a free prize now' }, { kind: 'text', text: 'hi' }], 2);
    const feeds = sessions.runs[0]!;
    expect(Object.keys(feeds).sort()).toEqual(['attention_mask', 'input_ids', 'token_type_ids']);
    const [rows, length] = feeds.input_ids!.dims;
    expect(rows).toBe(2);
    expect(feeds.attention_mask!.dims).toEqual([2, length]);
    expect(feeds.token_type_ids!.data.every((v) => v === 0n)).toBe(true);
    // The short text is padded: its mask ends in zeros, the long one's does not.
    const mask = feeds.attention_mask!.data;
    expect(mask[length! - 1]).toBe(1n);
    expect(mask[2 * length! - 1]).toBe(0n);
    expect(batch.items.map((i) => i.ok && i.value.predictions[0]!.label)).toEqual(['spam', 'spam']);
    expect(batch.batchSize).toBe(2);
  });

  it('fails one bad item (typed, serialised) and still answers the others', async () => {
    const { engine, sessions } = await engineWith([{ name: 'input_ids', type: INT64 }, { name: 'attention_mask', type: INT64 }]);
    sessions.winner = 0;
    const batch = await engine.classify('spam-filter@1.0.0', [{ kind: 'text', text: '   ' }, { kind: 'image', image: new Blob([]) }, { kind: 'text', text: 'lunch?' }], 1);
    expect(batch.items.map((i) => (i.ok ? i.value.predictions.map((p) => p.label) : i.error.name))).toEqual(['InputError', 'InputError', ['ham']]);
    expect(sessions.runs[0]!.input_ids!.dims[0]).toBe(1);
  });

  it('runs a fixed-batch model one input at a time, and passes a run-time fallback on', async () => {
    const config = json('config.json') as { lantern: Record<string, unknown> };
    config.lantern.batch = 'fixed';
    const { engine, sessions } = await engineWith([{ name: 'input_ids', type: INT64 }, { name: 'attention_mask', type: INT64 }], spamFiles(config));
    sessions.fallback = { kind: 'webgpu-run-failed', detail: 'lost' };
    const batch = await engine.classify('spam-filter@1.0.0', [{ kind: 'text', text: 'a' }, { kind: 'text', text: 'b' }, { kind: 'text', text: 'c' }], 1);
    expect(sessions.runs.map((r) => r.input_ids!.dims[0])).toEqual([1, 1, 1]);
    expect(batch.fallback).toBe(sessions.fallback);
  });

  it('refuses at load an input it cannot feed, a missing output, and a bad file — and releases the session', async () => {
    await expect(engineWith([{ name: 'input_ids', type: INT64 }, { name: 'position_ids', type: INT64 }], spamFiles(withoutNames())))
      .rejects.toThrow(/position_ids/);
    const sessions = new FakeSessions([{ name: 'input_ids', type: INT64 }, { name: 'attention_mask', type: INT64 }], ['scores']);
    const engine = new InferenceEngine(sessions);
    await engine.init('auto');
    await expect(engine.load(spamFiles())).rejects.toThrow(ModelLoadError);
    expect(sessions.released).toBe(1);
    const bad = spamFiles();
    bad.tokenizerConfig = { model_max_length: -3 };
    await expect(engineWith([{ name: 'input_ids', type: INT64 }], bad)).rejects.toThrow(/tokenizer_config\.json is not valid at "model_max_length"/);
  });

  it('refuses at load a model whose scores are float16 (read as float32 they would be confident nonsense)', async () => {
    const sessions = new FakeSessions([{ name: 'input_ids', type: INT64 }, { name: 'attention_mask', type: INT64 }]);
    sessions.outputType = 'float16';
    const engine = new InferenceEngine(sessions);
    await engine.init('auto');
    await expect(engine.load(spamFiles())).rejects.toThrow(new ModelLoadError('The model\'s output "logits" is float16; Lantern reads float32 scores (export the classifier head in float32).', { key: 'spam-filter@1.0.0' }));
    expect(sessions.released).toBe(1);
  });

  it('fails a text its tokenizer has no ids for with the model\'s error, not an answer about padding', async () => {
    const unknownKind = spamFiles();
    const tokenizer = json('tokenizer.json') as { model: { vocab: Record<string, number> } };
    // The library runs a kind it does not know when it has a vocabulary, giving null for a word outside it.
    unknownKind.tokenizer = { ...tokenizer, model: { type: 'Foo', vocab: tokenizer.model.vocab } };
    unknownKind.tokenizerConfig = {};
    const { engine, sessions } = await engineWith([{ name: 'input_ids', type: INT64 }, { name: 'attention_mask', type: INT64 }], unknownKind);
    const batch = await engine.classify('spam-filter@1.0.0', [{ kind: 'text', text: 'hello qwzxv' }, { kind: 'text', text: 'hello world' }], 1);
    expect(batch.items.map((i) => (i.ok ? 'answered' : i.error.name))).toEqual(['ModelLoadError', 'answered']);
    expect(sessions.runs[0]!.input_ids!.dims[0]).toBe(1);
  });

  it('loads a version once, unloads it, and then refuses to run it', async () => {
    const { engine, sessions, report } = await engineWith([{ name: 'input_ids', type: INT64 }, { name: 'attention_mask', type: INT64 }]);
    expect(report).toMatchObject({ key: 'spam-filter@1.0.0', backend: 'wasm', inputNames: ['input_ids', 'attention_mask'], outputNames: ['logits'] });
    expect((await engine.load(spamFiles())).createMs).toBe(0);
    await engine.unload('spam-filter@1.0.0');
    expect(sessions.released).toBe(1);
    await expect(engine.classify('spam-filter@1.0.0', [{ kind: 'text', text: 'a' }], 1)).rejects.toThrow(ModelLoadError);
  });
});

describe('InferenceEngine (image)', () => {
  const imageFiles = (): ModelFiles => ({
    key: 'img@1.0.0', onnx: new ArrayBuffer(8),
    config: { id2label: { 0: 'a', 1: 'b' }, lantern: { id: 'img', version: '1.0.0', task: 'image-classification' } },
    preprocessor: { size: { height: 4, width: 4 } },
  });

  it('refuses, in the user\'s terms, an image of another size for a model that does not resize, and answers one of its size', async () => {
    const files = { ...imageFiles(), preprocessor: { do_resize: false, size: { height: 4, width: 4 } } };
    const { engine, sessions } = await engineWith([{ name: 'pixel_values', type: 'float32' }], files);
    const pixels = (width: number, height: number) => ({ kind: 'image' as const, image: { data: new Uint8ClampedArray(width * height * 4).fill(128), width, height } });
    // Raw pixels, told from a bitmap by the browser's class, which Node lacks.
    vi.stubGlobal('ImageBitmap', class {});
    const batch = await engine.classify('img@1.0.0', [pixels(6, 5), pixels(4, 4)], 1).finally(() => vi.unstubAllGlobals());
    expect(batch.items[0]).toMatchObject({
      ok: false,
      error: { name: 'InputError', message: expect.stringContaining('exactly 4×4 pixels') as unknown, details: { reason: 'wrong-size', width: 6, height: 5, modelWidth: 4, modelHeight: 4 } },
    });
    expect(batch.items[1]!.ok).toBe(true);
    expect(sessions.runs.map((feeds) => feeds.pixel_values!.dims)).toEqual([[1, 3, 4, 4]]);
  });

  it('takes the one floating-point input as the pixels when the model has others', async () => {
    const { report } = await engineWith([{ name: 'pixel_values', type: 'float32' }, { name: 'scale', type: INT64 }], imageFiles());
    expect(report.inputNames).toEqual(['pixel_values', 'scale']);
  });

  it('refuses at load, naming the field, a config it would read otherwise than transformers.js (as model:pack does)', async () => {
    const load = (edit: (files: ModelFiles) => void) => {
      const files = imageFiles();
      edit(files);
      return engineWith([{ name: 'pixel_values', type: 'float32' }], files);
    };
    const cases: [(files: ModelFiles) => void, string][] = [
      [(f) => (f.config = { ...(f.config as object), id2label: { 0: 'a', 1: 'b', 3: 'd' } }), 'config.json is not valid at "id2label": id2label\'s keys must be 0 to 2 with no gap (output i is labelled id2label[i]); "2" is missing.'],
      [(f) => (f.preprocessor = { size: 4, do_center_crop: true, crop_size: 4 }), 'preprocessor_config.json is not valid at "size": size 4 (a number) is read differently by transformers.js (the image fitted within 4×4, then padded to crop_size) and by Python (a 4×4 square or a shortest edge of 4, by processor class); write {"height": 4, "width": 4} or {"shortest_edge": 4}.'],
      [(f) => (f.preprocessor = { size: { height: 4, width: 4 }, image_mean: [0.5, 0.5, 0.5], image_std: [0.5, 0.5, 0.5] }), 'preprocessor_config.json is not valid at "do_normalize": do_normalize is absent but image_mean and image_std are given: transformers.js then does not normalise, Python\'s processors do; write do_normalize: true or false.'],
      [(f) => (f.preprocessor = { size: { height: 4, width: 4 }, do_normalize: true }), 'preprocessor_config.json is not valid at "image_mean": do_normalize needs image_mean (transformers.js would compute NaN).'],
    ];
    for (const [edit, message] of cases) {
      const error = await load(edit).then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(ModelLoadError);
      expect((error as Error).message).toBe(message);
    }
  });

  it('refuses an image model whose pixel input is ambiguous', async () => {
    await expect(engineWith([{ name: 'a', type: 'float32' }, { name: 'b', type: 'float32' }], imageFiles())).rejects.toThrow(/one pixel input/);
  });
});

describe('InferenceEngine (frames and bitmaps the page sent)', () => {
  /** The worker's structured clone of a page VideoFrame: only what the engine touches. */
  class FakeFrame {
    displayWidth = 4;
    displayHeight = 4;
    closed = false;
    close() { this.closed = true; }
  }
  class FakeBitmap {
    width = 4;
    height = 4;
    closed = false;
    close() { this.closed = true; }
  }
  /** Enough of OffscreenCanvas for readPixels: every pixel white. */
  class FakeCanvas {
    constructor(public width: number, public height: number) {}
    getContext() {
      return { clearRect() {}, drawImage() {}, getImageData: (_x: number, _y: number, w: number, h: number) => ({ data: new Uint8ClampedArray(w * h * 4).fill(255) }) };
    }
  }
  const imageFiles = (): ModelFiles => ({
    key: 'img@1.0.0', onnx: new ArrayBuffer(8),
    config: { id2label: { 0: 'a', 1: 'b' }, lantern: { id: 'img', version: '1.0.0', task: 'image-classification' } },
    preprocessor: { size: { height: 4, width: 4 } },
  });
  const image = (source: FakeFrame | FakeBitmap) => ({ kind: 'image' as const, image: source as unknown as VideoFrame });

  it('frees a bitmap once its batch is answered, and frames refused before decoding or sent for a model it does not hold', async () => {
    vi.stubGlobal('ImageBitmap', FakeBitmap);
    vi.stubGlobal('OffscreenCanvas', FakeCanvas);
    try {
      const { engine } = await engineWith([{ name: 'pixel_values', type: 'float32' }], imageFiles());
      const bitmap = new FakeBitmap();
      const batch = await engine.classify('img@1.0.0', [image(bitmap)], 1);
      expect(batch.items[0]!.ok).toBe(true);
      expect(bitmap.closed).toBe(true);

      const text = await engineWith([{ name: 'input_ids', type: INT64 }, { name: 'attention_mask', type: INT64 }]);
      const refused = new FakeFrame();
      const answer = await text.engine.classify('spam-filter@1.0.0', [image(refused)], 1);
      expect(answer.items[0]).toMatchObject({ ok: false, error: { name: 'InputError' } });
      expect(refused.closed).toBe(true);

      const orphan = new FakeFrame();
      await expect(engine.classify('gone@1.0.0', [image(orphan)], 1)).rejects.toThrow(ModelLoadError);
      expect(orphan.closed).toBe(true);
    } finally {
      vi.unstubAllGlobals();
    }
  });
});
