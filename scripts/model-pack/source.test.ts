import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/runtime/errors.ts';
import { UsageError } from '../cli.mjs';
import { ModelConfigSchema, PreprocessorConfigSchema } from '../../src/runtime/model-config.ts';
import { generateKey } from '../../src/runtime/store/trust.ts';
import { readModelProto } from './onnx-graph.ts';
import { readModelSource, type SourceOptions } from './source.ts';

/**
 * Bring-your-own-model sources: tiny ONNX graphs written here (so each malformed case is exactly
 * one defect, and onnxruntime-web really loads them), the built-in models as real graphs, and
 * the ONNX Model Zoo ShuffleNet from ../shared when present.
 */
const ROOT = join(import.meta.dirname, '../..');
const SHUFFLENET = join(ROOT, '../shared/models/shufflenet-v2-int8/model.onnx');

// --- a minimal protobuf writer for test graphs ---------------------------------------------
const varint = (n: number): number[] => {
  const out: number[] = [];
  do {
    let b = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) b |= 0x80;
    out.push(b);
  } while (n > 0);
  return out;
};
const field = (no: number, value: number | string | number[]): number[] => {
  if (typeof value === 'number') return [...varint(no * 8), ...varint(value)];
  const bytes = typeof value === 'string' ? [...new TextEncoder().encode(value)] : value;
  return [...varint(no * 8 + 2), ...varint(bytes.length), ...bytes];
};
const FLOAT = 1;
const INT32 = 6;
const INT64 = 7;
type Dim = number | string;
const valueInfo = (name: string, elem: number, dims: Dim[]) => field(1, name).concat(field(2, field(1, [
  ...field(1, elem),
  ...field(2, dims.flatMap((d) => field(1, typeof d === 'number' ? field(1, d) : field(2, d)))),
])));

/** x[elem, inDims] → ReduceMean over `axes` (keepdims 0) → y[outDims]; opset 13. */
function graph(input: { elem?: number; dims: Dim[] }, axes: number[], outDims: Dim[], name = 'x'): Uint8Array {
  const node = [
    ...field(1, name), ...field(2, 'y'), ...field(4, 'ReduceMean'),
    ...field(5, [...field(1, 'axes'), ...axes.flatMap((a) => field(8, a)), ...field(20, 7)]),
    ...field(5, [...field(1, 'keepdims'), ...field(3, 0), ...field(20, 2)]),
  ];
  const g = [...field(1, node), ...field(2, 'g'), ...field(11, valueInfo(name, input.elem ?? FLOAT, input.dims)), ...field(12, valueInfo('y', input.elem ?? FLOAT, outDims))];
  return new Uint8Array([...field(1, 8), ...field(8, field(2, 13)), ...field(7, g)]);
}

/** A valid tiny image classifier: float [N, 3, 4, 5] → mean over H, W → [N, 3]. */
const IMAGE_OK = () => graph({ dims: ['N', 3, 4, 5] }, [2, 3], ['N', 3]);

let dir: string;
let n = 0;
async function file(name: string, bytes: Uint8Array | string): Promise<string> {
  const path = join(dir, `${n++}-${name}`);
  await writeFile(path, bytes);
  return path;
}
const IMAGE_FLAGS: SourceOptions = { id: 'tiny', version: '1.0.0', mean: '0.5', std: '0.5' };

async function refusal(promise: Promise<unknown>, type: new (...args: never[]) => Error = ValidationError): Promise<string> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(type);
  return (error as Error).message;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lantern-byom-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('ONNX ModelProto reader', () => {
  it('reads opset, domains and quantization of real graphs', async () => {
    const spam = readModelProto(await readFile(join(ROOT, 'models/spam-filter/onnx/model_quantized.onnx')), 'm');
    expect(spam.quantized).toBe(true);
    expect(spam.opset).toBeGreaterThanOrEqual(13);
    const fp32 = readModelProto(await readFile(join(ROOT, 'models/spam-filter/onnx/model.onnx')), 'm');
    expect(fp32.quantized).toBe(false);
    expect(readModelProto(IMAGE_OK(), 'm')).toEqual({ irVersion: 8, opset: 13, domains: [], quantized: false });
  });

  it.skipIf(!existsSync(SHUFFLENET))('reads the ONNX Model Zoo ShuffleNet: opset 12, com.microsoft, quantized', async () => {
    const info = readModelProto(await readFile(SHUFFLENET), 'm');
    expect(info).toMatchObject({ opset: 12, quantized: true });
    expect(info.domains).toContain('com.microsoft');
  });

  it('refuses corrupt and non-ONNX bytes with a sentence naming the file', async () => {
    const real = await readFile(join(ROOT, 'models/fashion-mnist/onnx/model_quantized.onnx'));
    expect(() => readModelProto(real.subarray(0, real.length - 7), 'onnx/model.onnx')).toThrow('onnx/model.onnx is not a valid ONNX model: its protobuf data is corrupt or truncated.');
    expect(() => readModelProto(new TextEncoder().encode('{"not": "onnx"}'), 'onnx/model.onnx')).toThrow(/^onnx\/model\.onnx is not (a valid ONNX model|an ONNX model)/);
  });
});

describe('bare .onnx + flags', () => {
  it('writes config.json and preprocessor_config.json from the graph and flags', async () => {
    const labels = await file('labels.txt', 'red\ngreen\nblue\n');
    const { model, graph: info } = await readModelSource(await file('m.onnx', IMAGE_OK()), { ...IMAGE_FLAGS, labels, size: '4x5', title: 'Tiny' });
    expect(info.inputs[0]).toEqual({ name: 'x', type: 'float32', shape: ['N', 3, 4, 5] });
    expect(model.meta).toMatchObject({ id: 'tiny', version: '1.0.0', task: 'image-classification', batch: 'dynamic', labels: ['red', 'green', 'blue'], title: 'Tiny' });
    const config = ModelConfigSchema.parse(JSON.parse(new TextDecoder().decode(model.files.find((f) => f.role === 'config')!.bytes)));
    expect(config.lantern).toMatchObject({ input_names: ['x'], output_name: 'y', output: 'logits' });
    const pre = PreprocessorConfigSchema.parse(JSON.parse(new TextDecoder().decode(model.files.find((f) => f.role === 'preprocessor')!.bytes)));
    expect(pre).toMatchObject({ size: { height: 4, width: 5 }, do_normalize: true, image_mean: [0.5, 0.5, 0.5], image_std: [0.5, 0.5, 0.5], do_center_crop: false });
    expect(model.files.map((f) => f.path)).toEqual(['onnx/model.onnx', 'config.json', 'preprocessor_config.json']);
  });

  it('names the missing flag when stdin is not a terminal, and asks when it is', async () => {
    const onnx = await file('m.onnx', graph({ dims: ['N', 3, 'h', 'w'] }, [2, 3], ['N', 3]));
    expect(await refusal(readModelSource(onnx, { ...IMAGE_FLAGS }), UsageError)).toBe('Missing --labels: labels file (labels.json or labels.txt).');
    const labels = await file('labels.json', JSON.stringify(['a', 'b', 'c']));
    expect(await refusal(readModelSource(onnx, { labels, id: 'x', version: '1.0.0', mean: '0.5', std: '0.5' }), UsageError)).toBe('Missing --size: model input size (e.g. 224).');
    const asked: string[] = [];
    const { model } = await readModelSource(onnx, { labels, mean: '0.5', std: '0.5', size: '4x5' }, async (q) => {
      asked.push(q);
      return q.startsWith('Model id') ? 'asked-id' : '2.0.0';
    });
    expect(asked).toHaveLength(2);
    expect(model.meta).toMatchObject({ id: 'asked-id', version: '2.0.0' });
  });

  it('refuses bad flag values without echoing them', async () => {
    const onnx = await file('m.onnx', IMAGE_OK());
    const labels = await file('labels.json', JSON.stringify({ 0: 'a', 1: 'b', 2: 'c' }));
    const cases: [SourceOptions, string][] = [
      [{ id: 'BAD ID <script>' }, '--id must be lowercase letters, digits, . _ - and at most one namespace/.'],
      [{ version: 'latest' }, '--version must be semver, e.g. 1.0.0.'],
      [{ mean: '0.5,abc' }, '--mean must be one or three comma-separated numbers.'],
      [{ std: '0' }, '--std values must be positive.'],
      [{ resize: 'bicubic' }, '--resize must be "stretch" or "shortest_edge:N".'],
      [{ output: 'softmax' }, '--output must be "logits" or "probabilities".'],
      [{ size: '4x5', crop: 'big' }, '--crop must be a size like 224 or 224x192.'],
    ];
    // A flag's value that breaks its rule is a usage error (exit 2), as an unknown flag is.
    for (const [flags, message] of cases) {
      expect(await refusal(readModelSource(onnx, { ...IMAGE_FLAGS, labels, size: '4x5', ...flags }), UsageError)).toBe(message);
    }
    // A {"0": label} map with a gap would shift every label after it onto another output.
    const gap = await file('gap.json', JSON.stringify({ 0: 'a', 1: 'b', 3: 'd' }));
    expect(await refusal(readModelSource(onnx, { ...IMAGE_FLAGS, labels: gap, size: '4x5' })))
      .toBe('The labels file is not valid: id2label\'s keys must be 0 to 2 with no gap (output i is labelled id2label[i]); "2" is missing.');
  });

  it('refuses graphs Lantern cannot run, naming the file', async () => {
    const labels3 = await file('labels.json', JSON.stringify(['a', 'b', 'c']));
    const cases: [Uint8Array, string][] = [
      [graph({ dims: ['N', 3, 4, 4] }, [3], ['N', 3, 4]), 'The ONNX file has no classifier output: Lantern needs a float output of shape [batch, labels].'],
      [graph({ elem: INT32, dims: ['N', 3, 4, 5] }, [2, 3], ['N', 3]), 'The ONNX file has an input of type int32; Lantern feeds images as float32 and text as int64 input_ids.'],
      [graph({ dims: ['N', 4, 4, 5] }, [2, 3], ['N', 4]), 'The ONNX file takes a float32 input that is not [batch, 1 or 3 channels, height, width] (NCHW).'],
      [graph({ dims: ['N', 3, 8] }, [2], ['N', 3]), 'The ONNX file takes a float32 input that is not [batch, 1 or 3 channels, height, width] (NCHW).'],
      [graph({ elem: INT64, dims: ['b', 's', 4] }, [2], ['b', 's'], 'input_ids'), 'The ONNX file has a text input Lantern cannot feed: it needs int64 [batch, sequence] input_ids, attention_mask and token_type_ids only.'],
    ];
    for (const [bytes, message] of cases) {
      expect(await refusal(readModelSource(await file('m.onnx', bytes), { ...IMAGE_FLAGS, labels: labels3, size: '4x5' }))).toBe(message);
    }
    const labels4 = await file('labels.txt', 'a\nb\nc\nd\n');
    const fixedWidth = IMAGE_OK();
    expect(await refusal(readModelSource(await file('m.onnx', fixedWidth), { ...IMAGE_FLAGS, labels: labels4, size: '4x5' })))
      .toBe('The ONNX file outputs 3 scores per input but there are 4 labels.');
    expect(await refusal(readModelSource(await file('m.onnx', new Uint8Array([8, 8, 0x3a, 0xff, 1])), { ...IMAGE_FLAGS, labels: labels3 })))
      .toBe('The ONNX file is not a valid ONNX model: its protobuf data is corrupt or truncated.');
    expect(await refusal(readModelSource(await file('m.onnx', IMAGE_OK().map((b, i) => (i === 40 ? 0 : b))), { ...IMAGE_FLAGS, labels: labels3 })))
      .toMatch(/^The ONNX file (cannot be loaded by onnxruntime|is not a valid ONNX model)/);
  });

  it('checks the preprocessing produces the tensor a fixed-size graph takes', async () => {
    const labels = await file('labels.json', JSON.stringify(['a', 'b', 'c']));
    const fixed = await file('fixed.onnx', graph({ dims: [1, 3, 4, 4] }, [2, 3], [1, 3]));
    expect(await refusal(readModelSource(fixed, { ...IMAGE_FLAGS, labels, size: '8' }))).toBe('The ONNX file takes 4x4 images but the preprocessing produces 8x8.');
    expect(await refusal(readModelSource(fixed, { ...IMAGE_FLAGS, labels, resize: 'shortest_edge:4' }))).toBe('The preprocessing (--resize, --size, --crop) is not valid at "size": the tensor size must be fixed: size {height, width}, do_center_crop with crop_size, ConvNeXt\'s crop_pct, or do_pad with pad_size.');
    const ok = await readModelSource(fixed, { ...IMAGE_FLAGS, labels, resize: 'shortest_edge:5', crop: '4' });
    expect(ok.model.meta.batch).toBe('fixed');
  });

  it('refuses a bare text classifier (it needs its tokenizer)', async () => {
    const labels = await file('labels.txt', 'ham\nspam\n');
    expect(await refusal(readModelSource(join(ROOT, 'models/spam-filter/onnx/model_quantized.onnx'), { labels, id: 's', version: '1.0.0' })))
      .toBe('The ONNX file is a text classifier: publish it as a folder with tokenizer.json and tokenizer_config.json.');
  });

  it.skipIf(!existsSync(SHUFFLENET))('packs the ONNX Model Zoo ShuffleNet with torchvision preprocessing', async () => {
    const { model } = await readModelSource(SHUFFLENET, {
      ...IMAGE_FLAGS, id: 'shufflenet', labels: join(ROOT, '../shared/models/shufflenet-v2-int8/labels.json'),
      resize: 'shortest_edge:256', crop: '224', mean: '0.485,0.456,0.406', std: '0.229,0.224,0.225',
    });
    expect(model.meta).toMatchObject({ batch: 'fixed', task: 'image-classification' });
    expect(model.meta.labels).toHaveLength(1000);
    expect(model.files[0]!.path).toBe('onnx/model_quantized.onnx');
  });
});

describe('Hugging Face / Lantern folders', () => {
  /** The spam filter as the hub publishes a transformers.js folder: no "lantern" block. */
  async function hubFolder(name: string, edit?: (config: Record<string, unknown>) => void, drop: string[] = []): Promise<string> {
    const folder = join(dir, `${n++}`, name);
    await cp(join(ROOT, 'models/spam-filter'), folder, { recursive: true, filter: (p) => !/\/(recipe|eval|samples)(\/|$)|model\.onnx$|\.test\.ts$/.test(p) });
    const config = JSON.parse(await readFile(join(folder, 'config.json'), 'utf8')) as Record<string, unknown>;
    delete config.lantern;
    edit?.(config);
    await writeFile(join(folder, 'config.json'), JSON.stringify(config));
    for (const f of drop) await rm(join(folder, f));
    return folder;
  }

  it('derives the lantern block from the graph, folder name and --version, without touching the folder', async () => {
    const folder = await hubFolder('My-Spam_Model');
    const before = await readFile(join(folder, 'config.json'));
    const { model } = await readModelSource(folder, { version: '3.1.0' });
    const config = ModelConfigSchema.parse(JSON.parse(new TextDecoder().decode(model.files.find((f) => f.role === 'config')!.bytes)));
    expect(config.lantern).toMatchObject({ id: 'my-spam_model', version: '3.1.0', task: 'text-classification', batch: 'dynamic', input_names: ['input_ids', 'attention_mask'], output_name: 'logits' });
    expect(await readFile(join(folder, 'config.json'))).toEqual(before);
    expect(await refusal(readModelSource(folder, {}), UsageError)).toBe('Missing --version: version (semver, e.g. 1.0.0).');
  });

  it('a folder that has its block (the repo\'s own models) is packed under the --id, --version and --title given, the rest of its block kept', async () => {
    const folder = join(dir, `${n++}`, 'spam-filter');
    await cp(join(ROOT, 'models/spam-filter'), folder, { recursive: true, filter: (p) => !/\/(recipe|eval|samples)(\/|$)|model\.onnx$|\.test\.ts$/.test(p) });
    const shipped = JSON.parse(await readFile(join(folder, 'config.json'), 'utf8')) as { lantern: Record<string, unknown> };
    const configOf = async (options: Parameters<typeof readModelSource>[1]) => {
      const { model } = await readModelSource(folder, options);
      return ModelConfigSchema.parse(JSON.parse(new TextDecoder().decode(model.files.find((f) => f.role === 'config')!.bytes)));
    };
    const kept = (await configOf({})).lantern;
    expect(kept).toMatchObject({ id: shipped.lantern.id, version: shipped.lantern.version, title: shipped.lantern.title });
    const renamed = await configOf({ id: 'acme/spam', version: '2.0.0', title: 'Acme spam filter' });
    expect(renamed.lantern).toEqual({ ...kept, id: 'acme/spam', version: '2.0.0', title: 'Acme spam filter' });
    expect(await refusal(readModelSource(folder, { id: 'Acme Spam' }), UsageError)).toMatch(/^--id must be/);
  });

  it('derives an image model\'s block and checks its preprocessor against the graph', async () => {
    const folder = join(dir, `${n++}`, 'fashion');
    await cp(join(ROOT, 'models/fashion-mnist'), folder, { recursive: true, filter: (p) => !/\/(recipe|eval|samples)(\/|$)|model\.onnx$/.test(p) });
    const config = JSON.parse(await readFile(join(folder, 'config.json'), 'utf8')) as Record<string, unknown>;
    delete config.lantern;
    await writeFile(join(folder, 'config.json'), JSON.stringify(config));
    const { model } = await readModelSource(folder, { version: '1.0.0', output: 'logits' });
    expect(model.meta).toMatchObject({ id: 'fashion', task: 'image-classification', batch: 'dynamic' });
    await writeFile(join(folder, 'preprocessor_config.json'), JSON.stringify({ size: { height: 28, width: 28 } }));
    expect(await refusal(readModelSource(folder, { version: '1.0.0' }))).toBe('onnx/model_quantized.onnx takes 1-channel images but the preprocessing produces 3.');
    await writeFile(join(folder, 'preprocessor_config.json'), JSON.stringify({ size: 'big' }));
    expect(await refusal(readModelSource(folder, { version: '1.0.0' }))).toMatch(/^preprocessor_config\.json is not valid at "size"/);
    // Hub keys Lantern does not implement are refused by name, never ignored.
    const fashion = { size: { height: 28, width: 28 }, do_convert_grayscale: true };
    await writeFile(join(folder, 'preprocessor_config.json'), JSON.stringify({ ...fashion, do_flip_channel_order: true }));
    expect(await refusal(readModelSource(folder, { version: '1.0.0' }))).toBe('preprocessor_config.json is not valid at "do_flip_channel_order": Lantern does not implement do_flip_channel_order; the model would see pixels it was not trained on.');
    await writeFile(join(folder, 'preprocessor_config.json'), JSON.stringify({ ...fashion, resample: 1 }));
    expect(await refusal(readModelSource(folder, { version: '1.0.0' }))).toMatch(/at "resample": .*not 1 \(Lanczos\)/);
    await writeFile(join(folder, 'preprocessor_config.json'), JSON.stringify({ ...fashion, resample: 3, do_flip_channel_order: false }));
    expect((await readModelSource(folder, { version: '1.0.0' })).model.meta.task).toBe('image-classification');
    // What transformers.js reads otherwise than Python, or not at all, is refused by field, as at load.
    const refusedAs = async (pre: object) => {
      await writeFile(join(folder, 'preprocessor_config.json'), JSON.stringify(pre));
      return refusal(readModelSource(folder, { version: '1.0.0' }));
    };
    expect(await refusedAs({ ...fashion, size: 28, do_center_crop: true, crop_size: 28 })).toMatch(/^preprocessor_config\.json is not valid at "size": size 28 \(a number\) is read differently by transformers\.js/);
    expect(await refusedAs({ ...fashion, image_mean: [0.286], image_std: [0.353] })).toMatch(/^preprocessor_config\.json is not valid at "do_normalize": do_normalize is absent but image_mean and image_std are given/);
    expect(await refusedAs({ ...fashion, do_normalize: true, image_mean: [0.286] })).toMatch(/^preprocessor_config\.json is not valid at "image_std": do_normalize needs image_std/);
    expect(await refusedAs({ ...fashion, resize_mode: 'fit_height_pad_right', do_pad: true, pad_size: { height: 20, width: 28 } })).toMatch(/^preprocessor_config\.json is not valid at "pad_size": pad_size .* is smaller than the image it pads/);
    expect(await refusedAs({ ...fashion, image_processor_type: 'ConvNextImageProcessor', size: { shortest_edge: 28 }, crop_pct: 1.5 })).toMatch(/^preprocessor_config\.json is not valid at "crop_pct"/);
    // crop_pct is read for ConvNeXt only: elsewhere ignored, whatever its value.
    await writeFile(join(folder, 'preprocessor_config.json'), JSON.stringify({ ...fashion, crop_pct: 1.5 }));
    expect((await readModelSource(folder, { version: '1.0.0' })).model.meta.task).toBe('image-classification');
  });

  it('the CLI exits 2 for a missing flag (a usage error) when stdin is not a terminal, 1 with the sentence when the work fails', async () => {
    const key = await file('key.json', JSON.stringify(await generateKey('t')));
    await chmod(key, 0o600);
    const pack = (...args: string[]) => spawnSync(join(ROOT, 'node_modules/.bin/tsx'), [join(ROOT, 'scripts/model-cli.ts'), 'pack', ...args, '--out', join(dir, 'out')], { cwd: ROOT, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
    const missing = pack(join(ROOT, 'models/fashion-mnist/onnx/model_quantized.onnx'), '--key', key);
    expect([missing.status, missing.stderr.trim()]).toEqual([2, 'lantern-model: Missing --labels: labels file (labels.json or labels.txt).\nRun with --help for usage.']);
    const badKey = pack(join(ROOT, 'models/fashion-mnist'), '--key', join(dir, 'secret-name.json'));
    expect([badKey.status, badKey.stderr.trim()]).toEqual([1, `lantern-model: ${join(dir, 'secret-name.json')} does not exist: check the path (files are written only into folders that exist).`]);
  });

  it('publishes a Lantern folder\'s config.json unchanged after checking it against the graph', async () => {
    const { model } = await readModelSource(join(ROOT, 'models/fashion-mnist'));
    expect(model.files.find((f) => f.role === 'config')!.bytes).toEqual(await readFile(join(ROOT, 'models/fashion-mnist/config.json')));
  });

  it('refuses malformed folders with a sentence naming the file', async () => {
    const cases: [Promise<string>, string][] = [
      [hubFolder('b', undefined, ['onnx/model_quantized.onnx']), 'The model folder has no onnx/model_quantized.onnx or onnx/model.onnx.'],
      [hubFolder('c', (c) => delete c.id2label), 'config.json has no id2label with at least two labels: Lantern needs a classifier.'],
      [hubFolder('d', (c) => (c.id2label = { 0: 'a', 1: 'b', 2: 'c' })), 'onnx/model_quantized.onnx outputs 2 scores per input but there are 3 labels.'],
      // A gap is named as such, not reported as an output width that does not match.
      [hubFolder('j', (c) => (c.id2label = { 0: 'ham', 2: 'spam' })), 'config.json is not valid at "id2label": id2label\'s keys must be 0 to 1 with no gap (output i is labelled id2label[i]); "1" is missing.'],
      [hubFolder('e', undefined, ['tokenizer.json']), 'The model folder has neither preprocessor_config.json (image model) nor tokenizer.json (text model).'],
      [hubFolder('f', undefined, ['tokenizer_config.json']), 'The model folder has tokenizer.json but no tokenizer_config.json.'],
      [hubFolder('g', (c) => (c.lantern = { id: 'g', version: '1.0.0', task: 'image-classification' })), 'config.json\'s lantern.task does not match onnx/model_quantized.onnx, which is a text model.'],
      [hubFolder('i', undefined, ['tokenizer.json', 'tokenizer_config.json']).then(async (f) => (await writeFile(join(f, 'preprocessor_config.json'), '{"size": 28}'), f)), 'onnx/model_quantized.onnx is a text model but the folder\'s files describe an image model.'],
    ];
    for (const [folder, message] of cases) expect(await refusal(readModelSource(await folder, { version: '1.0.0' }))).toBe(message);
    const noConfig = await hubFolder('a', undefined, ['config.json']);
    expect(await refusal(readModelSource(noConfig, { version: '1.0.0' }))).toBe(`The model folder ${noConfig} has no config.json (a transformers.js model folder, or give a .onnx file).`);
    const broken = await hubFolder('h');
    await writeFile(join(broken, 'config.json'), '{ not json');
    expect(await refusal(readModelSource(broken, { version: '1.0.0' }))).toBe('config.json is not valid JSON.');
    await writeFile(join(broken, 'config.json'), JSON.stringify({ id2label: { 0: 'ham', 1: 'spam' }, lantern: { id: 'x', version: '1.0.0', task: 'text-classification', output_name: 'nope' } }));
    expect(await refusal(readModelSource(broken))).toBe('onnx/model_quantized.onnx has no output with the configured output_name.');
    expect(await refusal(readModelSource(join(dir, 'absent')))).toBe(`${join(dir, 'absent')} does not exist: name a model folder or an .onnx file.`);
  });
});
