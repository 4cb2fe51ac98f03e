import { existsSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AutoModelForSequenceClassification, AutoProcessor, AutoTokenizer, ConvNextImageProcessor, ImageProcessor, pipeline, RawImage } from '@huggingface/transformers';
import * as ort from 'onnxruntime-node';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { InputError } from '../src/runtime/errors.ts';
import { pixelsToTensor, planResize } from './image-preprocess.ts';
import { PreprocessorConfigSchema, RuntimeConfigSchema, scoreFunction, TokenizerConfigSchema, type PreprocessorConfig } from '../src/runtime/model-config.ts';
import { rankRow, softmax } from '../src/runtime/postprocess.ts';
import { padBatch, TokenEncoder } from './text-preprocess.ts';
import { parseModelFile } from './tasks/task.ts';

/**
 * Lantern's preprocessing and scores against transformers.js 4.3.2 (Node build) on the same
 * decoded pixels / texts. Both sides get identical RGB bytes (decoded once with sharp), so only
 * the preprocessing is compared.
 *
 * Known, measured difference: transformers.js in Node resizes with sharp's `affine` (bilinear, no
 * antialiasing prefilter), Lantern with PIL's antialiased bilinear (what torchvision and the
 * Python processors do). Upscales agree closely; large downscales differ in high-frequency
 * detail. The bounds below are the measured values rounded up; top-1 must agree regardless.
 */
const ROOT = join(import.meta.dirname, '..');
const SHARED = join(ROOT, '../shared');
const SHUFFLENET = join(SHARED, 'models/shufflenet-v2-int8/model.onnx');

const IMAGENET = {
  do_resize: true, size: { shortest_edge: 256 }, resample: 2, do_center_crop: true, crop_size: { height: 224, width: 224 },
  do_rescale: true, rescale_factor: 1 / 255, do_normalize: true, image_mean: [0.485, 0.456, 0.406], image_std: [0.229, 0.224, 0.225],
};
const FIXED = { ...IMAGENET, size: { height: 224, width: 224 }, do_center_crop: false, image_mean: [0.5, 0.5, 0.5], image_std: [0.5, 0.5, 0.5] };

interface Rgba { data: Uint8Array; width: number; height: number }

async function decode(path: string): Promise<Rgba> {
  const { data, info } = await sharp(path).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height };
}

/** A smooth synthetic photo stand-in (always available): gradients and a soft disc. */
function synthetic(width: number, height: number): Rgba {
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      const d = Math.hypot(x - width / 2, y - height / 2) / Math.min(width, height);
      data[i] = Math.round(255 * x / (width - 1));
      data[i + 1] = Math.round(255 * y / (height - 1));
      data[i + 2] = Math.round(255 * Math.max(0, 1 - 2 * d));
      data[i + 3] = 255;
    }
  }
  return { data, width, height };
}

function lantern(image: Rgba, json: object): Float32Array {
  const config: PreprocessorConfig = PreprocessorConfigSchema.parse(json);
  return pixelsToTensor(image, planResize(image.width, image.height, config), config);
}

async function transformersJs(image: Rgba, json: object, Processor: typeof ImageProcessor | ImageProcessor = ImageProcessor): Promise<Float32Array> {
  const rgb = new Uint8ClampedArray(image.width * image.height * 3);
  for (let i = 0; i < image.width * image.height; i++) rgb.set(image.data.subarray(i * 4, i * 4 + 3), i * 3);
  const processor = Processor instanceof ImageProcessor ? Processor : new Processor(json);
  const { pixel_values } = await processor(new RawImage(rgb, image.width, image.height, 3)) as { pixel_values: { data: Float32Array } };
  return pixel_values.data;
}

/** The image processor transformers.js' pipelines build for a folder holding `json` (AutoProcessor picks its class). */
async function pipelineProcessor(json: object): Promise<ImageProcessor> {
  const dir = await mkdtemp(join(tmpdir(), 'lantern-processor-'));
  try {
    await writeFile(join(dir, 'preprocessor_config.json'), JSON.stringify(json));
    const processor = (await AutoProcessor.from_pretrained(dir, { local_files_only: true })).image_processor;
    if (!processor) throw new Error('AutoProcessor built no image processor');
    return processor;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function diff(a: Float32Array, b: Float32Array): { max: number; mean: number } {
  expect(a.length).toBe(b.length);
  let max = 0;
  let sum = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i]! - b[i]!);
    max = Math.max(max, d);
    sum += d;
  }
  return { max, mean: sum / a.length };
}

const argmax = (v: ArrayLike<number>) => Array.from(v).reduce((best, x, i, all) => (x > all[best]! ? i : best), 0);

describe('image preprocessing vs transformers.js', () => {
  it('agrees closely on an upscale (shortest edge + centre crop, and fixed size)', async () => {
    const image = synthetic(200, 150); // both configs enlarge: no antialiasing involved
    for (const config of [IMAGENET, FIXED]) {
      const d = diff(lantern(image, config), await transformersJs(image, config));
      // Measured (normalised units): shortest_edge+crop max 0.029 / mean 0.0075; fixed 224x224 max 0.80
      // (sharp's affine treats the last row/column differently) / mean 0.0041.
      expect(d.max).toBeLessThan(1);
      expect(d.mean).toBeLessThan(0.01);
    }
  });

  it.skipIf(!existsSync(SHUFFLENET))('gives the same top-1 and close scores on real photos with ShuffleNet V2', async () => {
    const session = await ort.InferenceSession.create(SHUFFLENET);
    const labels = JSON.parse(await readFile(join(SHARED, 'models/shufflenet-v2-int8/labels.json'), 'utf8')) as string[];
    const scores = async (tensor: Float32Array) => softmax((await session.run({ input: new ort.Tensor('float32', tensor, [1, 3, 224, 224]) })).output!.data as Float32Array);
    const report: string[] = [];
    for (const [name, expected] of [['cat.jpg', 'tabby, tabby cat'], ['panda.jpg', 'giant panda, panda, panda bear, coon bear, Ailuropoda melanoleuca']] as const) {
      const image = await decode(join(SHARED, 'images', name));
      for (const [configName, config] of [['imagenet', IMAGENET], ['fixed', FIXED]] as const) {
        const ours = lantern(image, config);
        const theirs = await transformersJs(image, config);
        const d = diff(ours, theirs);
        const [a, b] = [await scores(ours), await scores(theirs)];
        const top = argmax(a);
        expect(top).toBe(argmax(b));
        if (configName === 'imagenet') expect(labels[top]).toBe(expected);
        const scoreDiff = Math.max(...Array.from(a, (p, i) => Math.abs(p - b[i]!)));
        report.push(`${name} ${configName}: tensor max ${d.max.toFixed(3)} mean ${d.mean.toFixed(4)}, top-1 ${labels[top]} p=${a[top]!.toFixed(3)} vs ${b[top]!.toFixed(3)}, max score diff ${scoreDiff.toFixed(3)}`);
        // Downscaling a photo: PIL antialiasing vs sharp affine. Measured max ≈1.3–2.0, mean ≈0.03–0.07.
        // Measured: cat.jpg (224x224) fixed: identical; ImageNet max 0.26 / mean 0.022. panda.jpg
        // (a large downscale): ImageNet max 1.64 / mean 0.145, fixed max 0.86 / mean 0.086.
        // Score differences ≤ 0.079 (panda fixed: p 0.866 vs 0.787); top-1 always the same.
        expect(d.mean).toBeLessThan(0.2);
        expect(scoreDiff).toBeLessThan(0.1);
      }
    }
    console.log(`Lantern vs transformers.js:\n${report.join('\n')}`);
    await session.release();
  });
});

/**
 * Hub keys transformers.js honours and Lantern now reads the same way: `resample: 3` and
 * ConvNeXt's `crop_pct`. Lantern's bicubic is PIL's, byte for byte (image-resize.test.ts); in
 * Node transformers.js uses sharp's bicubic affine (no antialiasing prefilter), so the two agree
 * tightly on enlargements and only approximately on large reductions (as for bilinear above).
 * Measured (normalised units): synthetic enlargement max 0.035 / mean 0.007 for both; cat.jpg
 * bicubic mean 0.024, crop_pct mean 0.018; panda.jpg (a large reduction) mean 0.16–0.17. Top-1
 * identical everywhere; ShuffleNet score differences ≤ 0.068 (cat bicubic: p 0.892 vs 0.827).
 * Stated tolerance: tensor mean < 0.02 on enlargements, < 0.2 on photos; scores within 0.1.
 */
const BICUBIC = { ...IMAGENET, resample: 3 };
const CONVNEXT = { ...IMAGENET, image_processor_type: 'ConvNextImageProcessor', do_center_crop: false, crop_size: undefined, size: { shortest_edge: 224 }, crop_pct: 0.9, resample: 3 };

describe('hub preprocessing keys vs transformers.js', () => {
  it('bicubic and crop_pct agree closely on an enlargement', async () => {
    const image = synthetic(200, 150);
    for (const [config, Processor] of [[BICUBIC, ImageProcessor], [CONVNEXT, ConvNextImageProcessor]] as const) {
      const ours = lantern(image, config);
      expect(ours.length).toBe(3 * 224 * 224);
      const d = diff(ours, await transformersJs(image, config, Processor));
      console.log(`synthetic ${config === BICUBIC ? 'bicubic' : 'crop_pct'}: max ${d.max.toFixed(3)} mean ${d.mean.toFixed(4)}`);
      expect(d.mean).toBeLessThan(0.02);
    }
  });

  it.skipIf(!existsSync(SHUFFLENET))('bicubic and crop_pct give the same top-1 and close scores on real photos', async () => {
    const session = await ort.InferenceSession.create(SHUFFLENET);
    const scores = async (tensor: Float32Array) => softmax((await session.run({ input: new ort.Tensor('float32', tensor, [1, 3, 224, 224]) })).output!.data as Float32Array);
    const report: string[] = [];
    for (const name of ['cat.jpg', 'panda.jpg']) {
      const image = await decode(join(SHARED, 'images', name));
      for (const [configName, config, Processor] of [['bicubic', BICUBIC, ImageProcessor], ['crop_pct', CONVNEXT, ConvNextImageProcessor]] as const) {
        const ours = lantern(image, config);
        const d = diff(ours, await transformersJs(image, config, Processor));
        const [a, b] = [await scores(ours), await scores(await transformersJs(image, config, Processor))];
        expect(argmax(a)).toBe(argmax(b));
        const scoreDiff = Math.max(...Array.from(a, (p, i) => Math.abs(p - b[i]!)));
        report.push(`${name} ${configName}: tensor max ${d.max.toFixed(3)} mean ${d.mean.toFixed(4)}, top-1 p=${a[argmax(a)]!.toFixed(3)} vs ${b[argmax(b)]!.toFixed(3)}, max score diff ${scoreDiff.toFixed(3)}`);
        expect(d.mean).toBeLessThan(0.2);
        expect(scoreDiff).toBeLessThan(0.1);
      }
    }
    console.log(`Lantern vs transformers.js (hub keys):\n${report.join('\n')}`);
    await session.release();
  });
});

/**
 * crop_pct as transformers.js reads it: its pipelines build the class the config names, and of
 * those only ConvNextImageProcessor reads crop_pct (224/256 when absent); every other class
 * ignores it. The reference is the class AutoProcessor builds from the file, as a pipeline does.
 * Measured on the synthetic enlargement (normalised units): ViT-style configs mean 0.004–0.008,
 * ConvNeXt's mean 0.007.
 */
describe('crop_pct per processor class vs transformers.js', () => {
  it('ignores crop_pct for a class other than ConvNeXt\'s, and applies it (or its default) for ConvNeXt', async () => {
    const image = synthetic(200, 150);
    const cases = [
      ['ViT, fixed size', { ...FIXED, image_processor_type: 'ViTImageProcessor', crop_pct: 0.875 }, 'ViTImageProcessor'],
      ['ViT, shortest edge and centre crop', { ...IMAGENET, image_processor_type: 'ViTImageProcessor', crop_pct: 0.9 }, 'ViTImageProcessor'],
      ['ConvNeXt, crop_pct 0.9', CONVNEXT, 'ConvNextImageProcessor'],
      ['ConvNeXt, default crop_pct', { ...CONVNEXT, image_processor_type: undefined, feature_extractor_type: 'ConvNextFeatureExtractor', crop_pct: undefined }, 'ConvNextFeatureExtractor'],
    ] as const;
    const tensors: Float32Array[] = [];
    for (const [name, config, className] of cases) {
      const processor = await pipelineProcessor(config);
      expect(processor.constructor.name).toBe(className);
      const ours = lantern(image, config);
      expect(ours.length).toBe(3 * 224 * 224);
      const d = diff(ours, await transformersJs(image, config, processor));
      console.log(`crop_pct, ${name}: max ${d.max.toFixed(3)} mean ${d.mean.toFixed(4)}`);
      expect(d.mean).toBeLessThan(0.02);
      tensors.push(ours);
    }
    // The check can tell: ConvNeXt's two crops (224/0.9 → 248, 224/0.875 → 256) differ by more
    // than the tolerance (measured mean 0.047).
    expect(diff(tensors[2]!, tensors[3]!).mean).toBeGreaterThan(0.03);
  });
});

const SPAM = join(ROOT, 'models/spam-filter');

/**
 * The spam filter as a transformers.js folder in a temporary directory, its config.json being
 * `edit(config)` (transformers.js maps model_type to a class; the graph takes BERT's inputs, as
 * in bench/), with Lantern's encoder and an onnxruntime-node session on the same graph.
 */
async function withSpamFolder(edit: (config: Record<string, unknown>) => Record<string, unknown>, use: (spam: {
  dir: string; config: Record<string, unknown>; encoder: TokenEncoder; logits: (text: string) => Promise<Float32Array>;
}) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'lantern-parity-'));
  const session = await ort.InferenceSession.create(join(SPAM, 'onnx/model_quantized.onnx'));
  try {
    await cp(SPAM, dir, { recursive: true, filter: (p) => !/\/(recipe|eval)(\/|$)/.test(p) });
    const config = edit(JSON.parse(await readFile(join(SPAM, 'config.json'), 'utf8')) as Record<string, unknown>);
    await writeFile(join(dir, 'config.json'), JSON.stringify(config));
    const tokenizerJson = JSON.parse(await readFile(join(SPAM, 'tokenizer.json'), 'utf8')) as object;
    const encoder = new TokenEncoder(tokenizerJson, TokenizerConfigSchema.parse(JSON.parse(await readFile(join(SPAM, 'tokenizer_config.json'), 'utf8'))));
    const logits = async (text: string) => {
      const { ids, mask, length } = padBatch([encoder.encode(text)], encoder.padId);
      return (await session.run({ input_ids: new ort.Tensor('int64', ids, [1, length]), attention_mask: new ort.Tensor('int64', mask, [1, length]) })).logits!.data as Float32Array;
    };
    await use({ dir, config, encoder, logits });
  } finally {
    await session.release();
    await rm(dir, { recursive: true, force: true });
  }
}

describe('text preprocessing and scores vs transformers.js', () => {
  it('gives identical token ids and spam-filter scores', async () => {
    await withSpamFolder((config) => ({ ...config, model_type: 'bert' }), async ({ dir, encoder, logits }) => {
      const tokenizer = await AutoTokenizer.from_pretrained(dir, { local_files_only: true });
      const model = await AutoModelForSequenceClassification.from_pretrained(dir, { local_files_only: true, dtype: 'q8' });
      const texts = [
        await readFile(join(SPAM, 'samples/spam.txt'), 'utf8'),
        await readFile(join(SPAM, 'samples/ham.txt'), 'utf8'),
        'Congratulations! You have WON a free cruise, click here to claim your prize now!!!',
        'Hi Bob, the meeting moved to 3pm tomorrow; agenda attached.',
        'naïve café — résumé 日本語 emoji 🎉',
      ];
      let maxScoreDiff = 0;
      for (const text of texts) {
        const ours = encoder.encode(text);
        const theirs = await tokenizer(text, { add_special_tokens: true }) as { input_ids: { data: BigInt64Array } };
        const ids = Array.from(theirs.input_ids.data, Number);
        // Without truncation the ids are identical; with it we keep [SEP] and transformers.js drops it.
        if (!ours.truncated) expect(ours.ids).toEqual(ids);
        else expect(ours.ids.slice(0, -1)).toEqual(ids.slice(0, ours.ids.length - 1));
        if (ours.truncated) continue;
        const output = await model(await tokenizer(text)) as { logits: { data: Float32Array } };
        const [a, b] = [softmax(await logits(text)), softmax(output.logits.data)];
        expect(argmax(a)).toBe(argmax(b));
        maxScoreDiff = Math.max(maxScoreDiff, ...Array.from(a, (p, i) => Math.abs(p - b[i]!)));
      }
      // Same graph, same ids: only float noise between two ORT builds.
      expect(maxScoreDiff).toBeLessThan(1e-5);
    });
  });
});

describe('multi-label heads vs transformers.js', () => {
  it('scores every label with a sigmoid, as transformers.js does for problem_type multi_label_classification', async () => {
    // A plain hub config: no "lantern" block, a multi-label head.
    const hub = ({ lantern: _lantern, ...config }: Record<string, unknown>) => ({ ...config, model_type: 'bert', problem_type: 'multi_label_classification' });
    await withSpamFolder(hub, async ({ dir, config, logits }) => {
      const runtime = RuntimeConfigSchema.parse(config);
      expect(scoreFunction(runtime)).toBe('sigmoid');
      const classifier = await pipeline('text-classification', dir, { local_files_only: true, dtype: 'q8' });
      let maxDiff = 0;
      let fromSoftmax = 0;
      for (const text of ['Congratulations! You have WON a free cruise, click here to claim your prize now!!!', 'Hi Bob, the meeting moved to 3pm tomorrow; agenda attached.', await readFile(join(SPAM, 'samples/ham.txt'), 'utf8')]) {
        const row = await logits(text);
        const ours = rankRow(row, { scores: scoreFunction(runtime), id2label: runtime.id2label, k: 2 });
        const theirs = await classifier(text, { top_k: null }) as { label: string; score: number }[];
        expect(ours.map((p) => p.label)).toEqual(theirs.map((p) => p.label));
        const soft = softmax(row);
        fromSoftmax = Math.max(fromSoftmax, ...ours.map((p) => Math.abs(p.score - soft[p.index]!)));
        for (const p of ours) maxDiff = Math.max(maxDiff, Math.abs(p.score - theirs.find((t) => t.label === p.label)!.score));
      }
      // Same graph, same ids, same function: only float noise between two ORT builds; and the
      // check can tell: softmax would have given other scores.
      expect(maxDiff).toBeLessThan(1e-5);
      expect(fromSoftmax).toBeGreaterThan(1e-3);
    });
  });
});

/**
 * tokenizer_config.json and config.json as many hub exports write them, which transformers.js
 * reads and Lantern refused: special tokens as AddedToken objects (older exports), the "no limit"
 * sentinel 1e30 for model_max_length (beyond the safe-integer range), `problem_type: null`.
 */
describe('hub tokenizer_config.json variants vs transformers.js', () => {
  it('loads them, with the same token ids and scores as transformers.js', async () => {
    const hub = ({ lantern: _lantern, ...config }: Record<string, unknown>) => ({ ...config, model_type: 'bert', problem_type: null });
    await withSpamFolder(hub, async ({ dir, config }) => {
      const added = (content: string) => ({ __type: 'AddedToken', content, lstrip: false, normalized: false, rstrip: false, single_word: false, special: true });
      const raw = JSON.parse(await readFile(join(SPAM, 'tokenizer_config.json'), 'utf8')) as Record<string, unknown>;
      const tokenizerConfig = { ...raw, model_max_length: 1000000000000000019884624838656, pad_token: added('[PAD]'), unk_token: added('[UNK]'), cls_token: added('[CLS]'), sep_token: added('[SEP]') };
      await writeFile(join(dir, 'tokenizer_config.json'), JSON.stringify(tokenizerConfig));
      // The worker's own reading of the folder's files (what failed with a ModelLoadError before).
      const runtime = parseModelFile(RuntimeConfigSchema, config, 'config.json');
      const encoder = new TokenEncoder(JSON.parse(await readFile(join(SPAM, 'tokenizer.json'), 'utf8')) as object, parseModelFile(TokenizerConfigSchema, tokenizerConfig, 'tokenizer_config.json'));
      expect(encoder.padId).toBe(0);
      const tokenizer = await AutoTokenizer.from_pretrained(dir, { local_files_only: true });
      const classifier = await pipeline('text-classification', dir, { local_files_only: true, dtype: 'q8' });
      const session = await ort.InferenceSession.create(join(SPAM, 'onnx/model_quantized.onnx'));
      try {
        let maxDiff = 0;
        for (const text of ['Congratulations! You have WON a free cruise, click here to claim your prize now!!!', 'Hi Bob, the meeting moved to 3pm tomorrow; agenda attached.']) {
          const ours = encoder.encode(text);
          const theirs = await tokenizer(text) as { input_ids: { data: BigInt64Array } };
          expect(ours.ids).toEqual(Array.from(theirs.input_ids.data, Number));
          const { ids, mask, length } = padBatch([ours], encoder.padId);
          const row = (await session.run({ input_ids: new ort.Tensor('int64', ids, [1, length]), attention_mask: new ort.Tensor('int64', mask, [1, length]) })).logits!.data as Float32Array;
          const predictions = rankRow(row, { scores: scoreFunction(runtime), id2label: runtime.id2label, k: 2 });
          const reference = await classifier(text, { top_k: null }) as { label: string; score: number }[];
          expect(predictions.map((p) => p.label)).toEqual(reference.map((p) => p.label));
          for (const p of predictions) maxDiff = Math.max(maxDiff, Math.abs(p.score - reference.find((r) => r.label === p.label)!.score));
        }
        expect(maxDiff).toBeLessThan(1e-5);
      } finally {
        await session.release();
      }
    });
  });
});

/**
 * preprocessor_config.json keys Lantern now reads exactly as transformers.js' ImageProcessor
 * does, on real images (the repo's model samples; ../shared photos when present), each decoded
 * once by transformers.js itself (RawImage.read). Lantern gets those pixels as RGBA, as a browser
 * decodes any image (gray replicated, alpha kept). Where no resampling is involved the tensors
 * must agree to float rounding.
 */
const BAG = join(ROOT, 'models/fashion-mnist/samples/bag.png'); // 28×28, 1 channel
const LINE = join(ROOT, 'models/doc-orientation/samples/upright.png'); // 542×48 RGB
const CAT = join(SHARED, 'images/cat.jpg'); // 224×224 RGB

/** Lantern on transformers.js' decoded pixels, turned into the RGBA a browser hands over. */
function lanternOn(image: RawImage, json: object): Float32Array {
  const rgba = image.clone().rgba();
  return lantern({ data: new Uint8Array(rgba.data.buffer, rgba.data.byteOffset, rgba.data.length), width: rgba.width, height: rgba.height }, json);
}

/** transformers.js' own processor on its own decoded image: the values and the tensor's dims. */
async function reference(image: RawImage, json: object): Promise<{ data: Float32Array; dims: number[] }> {
  const { pixel_values } = await new ImageProcessor(json)(image) as { pixel_values: { data: Float32Array; dims: number[] } };
  return { data: pixel_values.data, dims: pixel_values.dims };
}

const HALF = { do_normalize: true, image_mean: [0.5, 0.5, 0.5], image_std: [0.5, 0.5, 0.5] };

describe('preprocessor keys read as transformers.js reads them (real images)', () => {
  it('normalises only when do_normalize is true: absent means no normalisation, false leaves image_mean unread', async () => {
    const images: [RawImage, number, number][] = [[await RawImage.read(BAG), 28, 28], [await RawImage.read(LINE), 48, 542]];
    if (existsSync(CAT)) images.push([await RawImage.read(CAT), 224, 224]);
    for (const [image, height, width] of images) {
      const size = { height, width };
      for (const config of [{ size }, { size, do_normalize: false, image_mean: [0.485, 0.456, 0.406] }, { size, ...HALF }]) {
        const ours = lanternOn(image, config);
        const theirs = await reference(image, config);
        expect(theirs.dims).toEqual([1, 3, height, width]);
        expect(diff(ours, theirs.data).max).toBeLessThan(1e-6);
      }
      // Absent and false alike give the rescaled pixels, in [0, 1].
      expect(lanternOn(image, { size }).every((v) => v >= 0 && v <= 1)).toBe(true);
    }
  });

  it('do_convert_rgb false: the same tensor for an RGB image; a gray or RGBA one converted as with true (transformers.js would feed 1 or 4 channels)', async () => {
    const line = await RawImage.read(LINE);
    const size = { size: { height: 48, width: 542 }, ...HALF };
    expect(diff(lanternOn(line, { ...size, do_convert_rgb: false }), (await reference(line, { ...size, do_convert_rgb: false })).data).max).toBeLessThan(1e-6);

    // The same text line with a real alpha channel (a left-to-right ramp), made in memory.
    const rgba = new Uint8ClampedArray(line.width * line.height * 4);
    for (let i = 0; i < line.width * line.height; i++) {
      rgba.set(line.data.subarray(i * 3, i * 3 + 3), i * 4);
      rgba[i * 4 + 3] = Math.round((255 * (i % line.width)) / (line.width - 1));
    }
    const bag = await RawImage.read(BAG);
    expect(bag.channels).toBe(1);
    for (const [image, height, width] of [[new RawImage(rgba, line.width, line.height, 4), 48, 542], [bag, 28, 28]] as const) {
      const config = { size: { height, width }, ...HALF, image_mean: 0.5, image_std: 0.5 };
      const unconverted = await reference(image, { ...config, do_convert_rgb: false });
      expect(unconverted.dims).toEqual([1, image.channels, height, width]);
      const ours = lanternOn(image, { ...config, do_convert_rgb: false });
      expect(ours.length).toBe(3 * height * width);
      expect(diff(ours, (await reference(image, config)).data).max).toBeLessThan(1e-6);
    }
  });

  it('pads a centre crop larger than the image with black, centred as transformers.js center_crop does', async () => {
    const bag = await RawImage.read(BAG);
    const line = await RawImage.read(LINE);
    // No resize: exact. Odd differences (33 - 28 = 5) place the image at the floor of half.
    const config = { do_resize: false, size: { height: 28, width: 28 }, do_center_crop: true, crop_size: { height: 40, width: 33 }, ...HALF };
    const theirs = await reference(bag, config);
    const ours = lanternOn(bag, config);
    expect(theirs.dims).toEqual([1, 3, 40, 33]);
    expect(diff(ours, theirs.data).max).toBeLessThan(1e-6);
    expect(ours[0]).toBe(-1); // black, normalised

    // Rows padded, columns cropped. transformers.js' Node path cannot do both in one call (sharp
    // runs its extract before its extend: "bad extract area"; the browser's canvas path does it),
    // so the reference is its own center_crop one axis at a time, the same rule per axis.
    for (const crop of [{ height: 64, width: 500 }, { height: 51, width: 51 }]) {
      const columns = await line.clone().center_crop(crop.width, line.height);
      const both = await columns.center_crop(crop.width, crop.height);
      const lineConfig = { do_resize: false, size: { height: 48, width: 542 }, ...HALF };
      const expected = await reference(both, lineConfig);
      const ours = lanternOn(line, { ...lineConfig, do_center_crop: true, crop_size: crop });
      expect(expected.dims).toEqual([1, 3, crop.height, crop.width]);
      expect(diff(ours, expected.data).max).toBeLessThan(1e-6);
    }
    if (!existsSync(CAT)) return;
    // After a resize (PIL's antialiased bilinear against sharp's affine) the interior differs a
    // little; the black border is the same exactly.
    const cat = await RawImage.read(CAT);
    const catConfig = { size: { height: 200, width: 150 }, do_center_crop: true, crop_size: 224, ...HALF };
    const resized = lanternOn(cat, catConfig);
    const catReference = (await reference(cat, catConfig)).data;
    const border = (t: Float32Array) => Array.from(t).filter((_, i) => { const y = Math.floor((i % (224 * 224)) / 224); const x = i % 224; return y < 12 || y >= 212 || x < 37 || x >= 187; });
    expect(border(resized)).toEqual(border(catReference));
    expect(new Set(border(resized))).toEqual(new Set([-1]));
    expect(diff(resized, catReference).mean).toBeLessThan(0.05);
  });

  it('do_pad: pads to pad_size (from size when absent) as transformers.js does; an image larger than it is refused, which transformers.js clips', async () => {
    const line = await RawImage.read(LINE); // 542×48
    const padded: [object, number, number][] = [
      [{ do_resize: false, size: { height: 48, width: 542 }, do_pad: true, pad_size: { height: 64, width: 600 }, ...HALF }, 64, 600],
      [{ do_resize: false, size: { height: 60, width: 560 }, do_pad: true, ...HALF }, 60, 560],
    ];
    for (const [config, height, width] of padded) {
      const theirs = await reference(line, config);
      expect(theirs.dims).toEqual([1, 3, height, width]);
      expect(diff(lanternOn(line, config), theirs.data).max).toBeLessThan(1e-6);
    }
    // 542 columns into 500: transformers.js' pad_image keeps the left 500 of each row, and the
    // last row's other 42 land in the padding row below it.
    const config = { do_resize: false, size: { height: 48, width: 542 }, do_pad: true, pad_size: { height: 64, width: 500 }, ...HALF };
    const clipped = await reference(line, config);
    expect(clipped.dims).toEqual([1, 3, 64, 500]);
    const lastRow = Array.from(line.data.subarray(47 * 542 * 3, 48 * 542 * 3).filter((_, i) => i % 3 === 0), (v) => v / 127.5 - 1);
    expect(diff(clipped.data.subarray(48 * 500, 48 * 500 + 42), Float32Array.from(lastRow.slice(500))).max).toBeLessThan(1e-6);
    expect(() => lanternOn(line, config)).toThrow(new InputError('The prepared image is 542×48 pixels, larger than the model\'s pad_size (500×64): it would be clipped.', { reason: 'unprepared', width: 542, height: 48, padWidth: 500, padHeight: 64 }));
    // Where every image would be larger (resized to a fixed size), the config is refused at load.
    expect(PreprocessorConfigSchema.safeParse({ ...config, do_resize: true }).error?.issues[0]?.path).toEqual(['pad_size']);
  });

  it('size as a number: transformers.js fits the image within N×N and pads it (Python does not), so Lantern refuses it', async () => {
    const line = await RawImage.read(LINE);
    const config = { size: 48, do_center_crop: true, crop_size: 48, ...HALF };
    const theirs = await reference(line, config);
    // 542×48 → 48×4 (longest edge 48), then padded to 48×48: 22 black rows above, 22 below.
    expect(theirs.dims).toEqual([1, 3, 48, 48]);
    expect(new Set(theirs.data.subarray(0, 22 * 48))).toEqual(new Set([-1]));
    expect(new Set(theirs.data.subarray(26 * 48, 48 * 48))).toEqual(new Set([-1]));
    expect(PreprocessorConfigSchema.safeParse(config).error?.issues[0]?.path).toEqual(['size']);
  });
});
