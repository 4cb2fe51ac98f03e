import { describe, expect, it } from 'vitest';
import { planResize, rgbaToTensor, workingSize } from './image-preprocess.ts';
import { PreprocessorConfigSchema } from '../src/runtime/model-config.ts';

const torchvision = PreprocessorConfigSchema.parse({
  size: { shortest_edge: 256 },
  do_center_crop: true,
  crop_size: 224,
  image_mean: [0.485, 0.456, 0.406],
  image_std: [0.229, 0.224, 0.225],
});
const ocrLine = PreprocessorConfigSchema.parse({
  size: { height: 48, width: 192 },
  resize_mode: 'fit_height_pad_right',
  do_pad: true,
  pad_size: { height: 48, width: 192 },
});
const mnist = PreprocessorConfigSchema.parse({
  size: { height: 28, width: 28 },
  do_convert_grayscale: true,
  image_mean: [0.286],
  image_std: [0.353],
});

describe('planResize', () => {
  it('follows ConvNeXt\'s crop_pct: short side to floor(edge / crop_pct), then an edge² crop; warps from 384', () => {
    const convnext = PreprocessorConfigSchema.parse({ size: { shortest_edge: 224 }, crop_pct: 0.9, resample: 3 });
    const plan = planResize(500, 400, convnext);
    expect(plan).toMatchObject({ resizeWidth: 310, resizeHeight: 248, outWidth: 224, outHeight: 224 });
    expect(plan.crop).toEqual({ x: 43, y: 12, width: 224, height: 224 });
    const large = planResize(500, 400, PreprocessorConfigSchema.parse({ size: { shortest_edge: 384 }, crop_pct: 0.9 }));
    expect(large).toMatchObject({ resizeWidth: 384, resizeHeight: 384, crop: { x: 0, y: 0, width: 384, height: 384 } });
  });

  it('resizes the short side and centre-crops (torchvision style)', () => {
    const plan = planResize(640, 480, torchvision);
    expect(plan).toMatchObject({ resizeWidth: 341, resizeHeight: 256, outWidth: 224, outHeight: 224 });
    expect(plan.crop).toEqual({ x: 58, y: 16, width: 224, height: 224 });
    const portrait = planResize(480, 640, torchvision);
    expect([portrait.resizeWidth, portrait.resizeHeight]).toEqual([256, 341]);
  });
  it('keeps the aspect at a fixed height and pads right for OCR lines', () => {
    expect(planResize(400, 100, ocrLine)).toMatchObject({ resizeWidth: 192, resizeHeight: 48, outWidth: 192 });
    const short = planResize(200, 100, ocrLine);
    expect(short).toMatchObject({ resizeWidth: 96, resizeHeight: 48, outWidth: 192, outHeight: 48 });
    expect(short.crop.width).toBe(96);
  });
  it('stretches to a fixed size', () => {
    expect(planResize(100, 50, mnist)).toMatchObject({ resizeWidth: 28, resizeHeight: 28, outWidth: 28, outHeight: 28 });
  });
});

describe('rgbaToTensor', () => {
  it('rescales, normalises per channel and lays out CHW', () => {
    // 2×1 image: a red and a white pixel.
    const rgba = new Uint8Array([255, 0, 0, 255, 255, 255, 255, 255]);
    const cfg = PreprocessorConfigSchema.parse({ size: { height: 1, width: 2 }, image_mean: [0.5, 0.5, 0.5], image_std: [0.5, 0.5, 0.5] });
    const t = rgbaToTensor(rgba, 2, 1, cfg);
    expect(Array.from(t)).toEqual([1, 1, -1, 1, -1, 1]);
  });
  it('pads with zeros after normalisation', () => {
    const rgba = new Uint8Array([0, 0, 0, 255]);
    const t = rgbaToTensor(rgba, 1, 1, ocrLine, undefined, 3, 1);
    expect(Array.from(t)).toEqual([-1, 0, 0, -1, 0, 0, -1, 0, 0]);
  });
  it('fills a reused array completely, padding included, as if it were new', () => {
    const rgba = new Uint8Array([0, 0, 0, 255]);
    const stale = new Float32Array(9).fill(42);
    const t = rgbaToTensor(rgba, 1, 1, ocrLine, undefined, 3, 1, stale);
    expect(t).toBe(stale);
    expect(Array.from(t)).toEqual([-1, 0, 0, -1, 0, 0, -1, 0, 0]);
  });
  it('reads only the crop region', () => {
    const rgba = new Uint8Array([0, 0, 0, 255, 255, 255, 255, 255, 0, 0, 0, 255]);
    const cfg = PreprocessorConfigSchema.parse({ size: { height: 1, width: 1 }, do_normalize: false });
    expect(Array.from(rgbaToTensor(rgba, 3, 1, cfg, { x: 1, y: 0, width: 1, height: 1 }))).toEqual([1, 1, 1]);
  });
  it('converts to one luma channel', () => {
    const rgba = new Uint8Array([255, 255, 255, 255, 0, 0, 0, 255]);
    const t = rgbaToTensor(rgba, 2, 1, mnist);
    expect(t.length).toBe(2);
    expect(t[0]).toBeCloseTo((1 - 0.286) / 0.353, 5);
    expect(t[1]).toBeCloseTo(-0.286 / 0.353, 5);
  });
});

describe('workingSize', () => {
  it('downscales huge images keeping aspect, leaves small ones alone', () => {
    expect(workingSize(8000, 8000)).toEqual({ width: 2048, height: 2048, scaled: true });
    expect(workingSize(8000, 2000)).toEqual({ width: 2048, height: 512, scaled: true });
    expect(workingSize(640, 480)).toEqual({ width: 640, height: 480, scaled: false });
  });
});
