// Checks every built-in model folder: config/expected.json shape, file sizes, and that the
// int8 model (what the app runs) classifies the committed samples correctly with
// onnxruntime-node, using the shared preprocessing code.
import { describe, it, expect } from 'vitest';
import { readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ort from 'onnxruntime-node';
import { Tokenizer } from '@huggingface/tokenizers';
import { decodePng, crop, rotate180 } from './_tools/png.mjs';
import { preprocessImage, targetSize, type PreprocessorConfig } from './_tools/preprocess.mjs';
import { truncateIds } from './spam-filter/recipe/mail-text.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const readJson = <T>(p: string): T => JSON.parse(readFileSync(join(here, p), 'utf8')) as T;

interface LanternConfig {
  id2label: Record<string, string>;
  label2id: Record<string, number>;
  lantern: {
    id: string; version: string; task: string; title: string; output: string; batch: string;
    input_names: string[]; output_name: string;
  };
}

const ids = ['spam-filter', 'doc-orientation', 'fashion-mnist'];

async function runInt8(id: string, feeds: Record<string, ort.Tensor>): Promise<Float32Array> {
  const cfg = readJson<LanternConfig>(`${id}/config.json`);
  const session = await ort.InferenceSession.create(join(here, id, 'onnx/model_quantized.onnx'));
  const out = await session.run(feeds);
  const t = out[cfg.lantern.output_name];
  if (!t) throw new Error(`no output ${cfg.lantern.output_name}`);
  return t.data as Float32Array;
}

const argmax = (a: ArrayLike<number>) => {
  let best = 0;
  for (let i = 1; i < a.length; i++) if ((a[i] ?? -Infinity) > (a[best] ?? -Infinity)) best = i;
  return best;
};

describe.each(ids)('model folder %s', (id) => {
  const cfg = readJson<LanternConfig>(`${id}/config.json`);

  it('has a complete config.json and expected.json', () => {
    expect(cfg.lantern.id).toBe(id);
    expect(cfg.lantern.version).toBe('1.0.0');
    expect(['text-classification', 'image-classification']).toContain(cfg.lantern.task);
    expect(['logits', 'probabilities']).toContain(cfg.lantern.output);
    expect(['dynamic', 'fixed']).toContain(cfg.lantern.batch);
    expect(cfg.lantern.input_names.length).toBeGreaterThan(0);
    const labels = Object.keys(cfg.id2label);
    labels.forEach((k, i) => {
      expect(k).toBe(String(i));
      expect(cfg.label2id[cfg.id2label[k] as string]).toBe(i);
    });
    const expected = readJson<{ n: number; fp32: number; int8: number; split: string; measured_with: string }>(`${id}/eval/expected.json`);
    expect(expected.n).toBeGreaterThan(0);
    for (const acc of [expected.fp32, expected.int8]) expect(acc).toBeGreaterThan(0.5);
    expect(Math.abs(expected.fp32 - expected.int8)).toBeLessThanOrEqual(0.005);
    expect(expected.measured_with).toMatch(/^onnxruntime-node /);
  });

  it('keeps its ONNX files under 1 MB', () => {
    for (const f of ['model.onnx', 'model_quantized.onnx']) {
      expect(statSync(join(here, id, 'onnx', f)).size).toBeLessThan(1024 * 1024);
    }
  });
});

describe('int8 models on the committed samples', () => {
  it('spam-filter: spam.txt is spam, ham.txt is ham (also batched with padding)', async () => {
    const tok = new Tokenizer(readJson<object>('spam-filter/tokenizer.json'), readJson<object>('spam-filter/tokenizer_config.json'));
    const texts = ['spam', 'ham'].map((n) => readFileSync(join(here, `spam-filter/samples/${n}.txt`), 'utf8'));
    const enc = texts.map((t) => truncateIds(tok.encode(t).ids, 256));
    const seq = Math.max(...enc.map((e) => e.length));
    const inputIds = new BigInt64Array(2 * seq);
    const mask = new BigInt64Array(2 * seq);
    enc.forEach((e, b) => e.forEach((v, k) => { inputIds[b * seq + k] = BigInt(v); mask[b * seq + k] = 1n; }));
    const y = await runInt8('spam-filter', {
      input_ids: new ort.Tensor('int64', inputIds, [2, seq]),
      attention_mask: new ort.Tensor('int64', mask, [2, seq]),
    });
    expect(argmax(y.subarray(0, 2))).toBe(1);
    expect(argmax(y.subarray(2, 4))).toBe(0);
  });

  it('doc-orientation: upright.png is 0 and upside-down.png is 180', async () => {
    const prep = readJson<PreprocessorConfig>('doc-orientation/preprocessor_config.json');
    const imgs = ['upright', 'upside-down'].map((n) => decodePng(readFileSync(join(here, `doc-orientation/samples/${n}.png`))));
    const data = new Float32Array(2 * 3 * 48 * 192);
    imgs.forEach((img, k) => data.set(preprocessImage(img, prep).data, k * 3 * 48 * 192));
    const y = await runInt8('doc-orientation', { x: new ort.Tensor('float32', data, [2, 3, 48, 192]) });
    expect(y[0]).toBeGreaterThan(0.9);
    expect(y[3]).toBeGreaterThan(0.9);
  });

  it('fashion-mnist: the samples are classified by their file names', async () => {
    const prep = readJson<PreprocessorConfig>('fashion-mnist/preprocessor_config.json');
    const cfg = readJson<LanternConfig>('fashion-mnist/config.json');
    const samples: [string, string][] = [['ankle-boot', 'Ankle boot'], ['trouser', 'Trouser'], ['bag', 'Bag']];
    for (const [file, label] of samples) {
      const t = preprocessImage(decodePng(readFileSync(join(here, `fashion-mnist/samples/${file}.png`))), prep);
      expect(t.dims).toEqual([1, 28, 28]);
      const y = await runInt8('fashion-mnist', { pixel_values: new ort.Tensor('float32', t.data, [1, 1, 28, 28]) });
      expect(cfg.id2label[String(argmax(y))]).toBe(label);
    }
  });
});

describe('shared image tools', () => {
  it('decodes the eval sprites and crops/rotates exactly', () => {
    const sprite = decodePng(readFileSync(join(here, 'doc-orientation/eval/lines.png')));
    const meta = readJson<{ lines: { x: number; y: number; w: number; h: number }[] }>('doc-orientation/eval/lines.json');
    expect(sprite.channels).toBe(1);
    const r = meta.lines[0];
    if (!r) throw new Error('no lines');
    const line = crop(sprite, r);
    expect(line.data.length).toBe(r.w * r.h);
    expect(rotate180(rotate180(line)).data).toEqual(line.data);
    expect(rotate180(line).data[0]).toBe(line.data[line.data.length - 1]);
  });

  it('fit_height_pad_right keeps the aspect, caps the width and pads with 0', () => {
    const prep = readJson<PreprocessorConfig>('doc-orientation/preprocessor_config.json');
    expect(targetSize(100, 50, prep)).toEqual({ width: 96, height: 48 });
    expect(targetSize(1000, 40, prep)).toEqual({ width: 192, height: 48 });
    const white = { width: 100, height: 50, channels: 1, data: new Uint8Array(5000).fill(255) };
    const t = preprocessImage(white, prep);
    expect(t.dims).toEqual([3, 48, 192]);
    expect(t.data[0]).toBeCloseTo(1, 6);      // (255/255 - 0.5) / 0.5
    expect(t.data[95]).toBeCloseTo(1, 6);
    expect(t.data[96]).toBe(0);               // padding
    // Unresized and wider than pad_size: refused, as the runtime refuses it, not clipped.
    expect(() => preprocessImage({ ...white, width: 200, data: new Uint8Array(10000) }, { ...prep, do_resize: false, size: { height: 48, width: 200 } })).toThrow(/larger than pad_size \(192x48\)/);
  });

  it('grayscale conversion and normalisation match the documented formulas', () => {
    const prep = readJson<PreprocessorConfig>('fashion-mnist/preprocessor_config.json');
    const rgba = { width: 28, height: 28, channels: 4, data: new Uint8Array(28 * 28 * 4) };
    for (let i = 0; i < 28 * 28; i++) rgba.data.set([200, 100, 50, 255], i * 4);
    const t = preprocessImage(rgba, prep);
    const gray = Math.round(0.299 * 200 + 0.587 * 100 + 0.114 * 50);
    expect(t.data[0]).toBeCloseTo((gray / 255 - 0.286) / 0.353, 5);
  });
});
