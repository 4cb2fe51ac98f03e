import { describe, expect, it } from 'vitest';
import { InputError } from '../src/runtime/errors.ts';
import { assertFitsUnresized, jpegDecodeEighths, nativeRegion, pixelsToTensor, planResize, resamplingOf, rgbaToTensor, workingSize } from './image-preprocess.ts';
import { resizeRgba } from './image-resize.ts';
import { PreprocessorConfigSchema, type PreprocessorConfig } from '../src/runtime/model-config.ts';

const torchvision = PreprocessorConfigSchema.parse({
  size: { shortest_edge: 256 },
  do_center_crop: true,
  crop_size: 224,
  do_normalize: true,
  image_mean: [0.485, 0.456, 0.406],
  image_std: [0.229, 0.224, 0.225],
});
const ocrLine = PreprocessorConfigSchema.parse({
  size: { height: 48, width: 192 },
  resize_mode: 'fit_height_pad_right',
  do_normalize: true,
  image_mean: [0.5, 0.5, 0.5],
  image_std: [0.5, 0.5, 0.5],
  do_pad: true,
  pad_size: { height: 48, width: 192 },
});
const mnist = PreprocessorConfigSchema.parse({
  size: { height: 28, width: 28 },
  do_convert_grayscale: true,
  do_normalize: true,
  image_mean: [0.286],
  image_std: [0.353],
});

describe('planResize', () => {
  it('follows ConvNeXt\'s crop_pct: short side to floor(edge / crop_pct), then an edge² crop; warps from 384', () => {
    const convnext = PreprocessorConfigSchema.parse({ image_processor_type: 'ConvNextImageProcessor', size: { shortest_edge: 224 }, crop_pct: 0.9, resample: 3 });
    const plan = planResize(500, 400, convnext);
    expect(plan).toMatchObject({ resizeWidth: 310, resizeHeight: 248, outWidth: 224, outHeight: 224 });
    expect(plan.crop).toEqual({ x: 43, y: 12, width: 224, height: 224 });
    const large = planResize(500, 400, PreprocessorConfigSchema.parse({ image_processor_type: 'ConvNextImageProcessor', size: { shortest_edge: 384 }, crop_pct: 0.9 }));
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
    // The width follows the image: against a narrower pad_size only a wide line is refused (the
    // schema refuses a pad_size lower than size.height, which no image fits).
    const narrow = PreprocessorConfigSchema.parse({ ...ocrLine, pad_size: { height: 48, width: 100 } });
    expect(planResize(200, 100, narrow)).toMatchObject({ resizeWidth: 96, resizeHeight: 48, outWidth: 100, outHeight: 48 });
    expect(() => planResize(400, 100, narrow)).toThrow(new InputError('The prepared image is 192×48 pixels, larger than the model\'s pad_size (100×48): it would be clipped.', { reason: 'unprepared', width: 192, height: 48, padWidth: 100, padHeight: 48 }));
  });
  it('stretches to a fixed size', () => {
    expect(planResize(100, 50, mnist)).toMatchObject({ resizeWidth: 28, resizeHeight: 28, outWidth: 28, outHeight: 28 });
  });
  it('pads to pad_size and refuses an image larger than it, which transformers.js would clip', () => {
    const config = PreprocessorConfigSchema.parse({ size: { shortest_edge: 20 }, do_pad: true, pad_size: { height: 30, width: 40 } });
    expect(planResize(50, 25, config)).toMatchObject({ resizeWidth: 40, resizeHeight: 20, outWidth: 40, outHeight: 30 });
    // 52×25 resizes to 41×20 (one column too wide); 20×40 stays 20×40 (ten rows too high).
    for (const [image, width, height] of [[[52, 25], 41, 20], [[20, 40], 20, 40]] as const) {
      expect(() => planResize(image[0], image[1], config)).toThrow(new InputError(`The prepared image is ${width}×${height} pixels, larger than the model's pad_size (40×30): it would be clipped.`, { reason: 'unprepared', width, height, padWidth: 40, padHeight: 30 }));
    }
  });
});

/** A `width`×`height` image laid at the top left of an `outWidth`×`outHeight` tensor. */
const padded = (width: number, height: number, outWidth: number, outHeight: number) => ({
  crop: { x: 0, y: 0, width, height }, at: { x: 0, y: 0 }, box: { width, height }, outWidth, outHeight,
});

describe('assertFitsUnresized', () => {
  const fixed = PreprocessorConfigSchema.parse({ do_resize: false, size: { height: 28, width: 28 }, do_normalize: false });

  it('lets through only an image of the input size when the model takes pixels as they are', () => {
    expect(() => assertFitsUnresized(28, 28, fixed)).not.toThrow();
    const refusal = (() => {
      try {
        assertFitsUnresized(640, 480, fixed);
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(InputError);
    expect((refusal as InputError).details).toEqual({ reason: 'wrong-size', width: 640, height: 480, modelWidth: 28, modelHeight: 28 });
  });

  it('leaves any size to a model that resizes, crops or pads', () => {
    for (const config of [mnist, { ...fixed, do_center_crop: true, crop_size: { height: 28, width: 28 } }, { ...fixed, do_pad: true, pad_size: { height: 28, width: 28 } }]) {
      expect(() => assertFitsUnresized(640, 480, config)).not.toThrow();
    }
  });
});

describe('rgbaToTensor', () => {
  it('rescales, normalises per channel and lays out CHW', () => {
    // 2×1 image: a red and a white pixel.
    const rgba = new Uint8Array([255, 0, 0, 255, 255, 255, 255, 255]);
    const cfg = PreprocessorConfigSchema.parse({ size: { height: 1, width: 2 }, do_normalize: true, image_mean: [0.5, 0.5, 0.5], image_std: [0.5, 0.5, 0.5] });
    const t = rgbaToTensor(rgba, 2, 1, cfg);
    expect(Array.from(t)).toEqual([1, 1, -1, 1, -1, 1]);
  });
  it('pads with zeros after normalisation', () => {
    const rgba = new Uint8Array([0, 0, 0, 255]);
    const t = rgbaToTensor(rgba, 1, 1, ocrLine, padded(1, 1, 3, 1));
    expect(Array.from(t)).toEqual([-1, 0, 0, -1, 0, 0, -1, 0, 0]);
  });
  it('fills a reused array completely, padding included, as if it were new', () => {
    const rgba = new Uint8Array([0, 0, 0, 255]);
    const stale = new Float32Array(9).fill(42);
    const t = rgbaToTensor(rgba, 1, 1, ocrLine, padded(1, 1, 3, 1), stale);
    expect(t).toBe(stale);
    expect(Array.from(t)).toEqual([-1, 0, 0, -1, 0, 0, -1, 0, 0]);
  });
  it('reads only the crop region', () => {
    const rgba = new Uint8Array([0, 0, 0, 255, 255, 255, 255, 255, 0, 0, 0, 255]);
    const cfg = PreprocessorConfigSchema.parse({ size: { height: 1, width: 1 }, do_normalize: false });
    expect(Array.from(rgbaToTensor(rgba, 3, 1, cfg, { ...padded(1, 1, 1, 1), crop: { x: 1, y: 0, width: 1, height: 1 } }))).toEqual([1, 1, 1]);
  });
  it('converts to one luma channel', () => {
    const rgba = new Uint8Array([255, 255, 255, 255, 0, 0, 0, 255]);
    const t = rgbaToTensor(rgba, 2, 1, mnist);
    expect(t.length).toBe(2);
    expect(t[0]).toBeCloseTo((1 - 0.286) / 0.353, 5);
    expect(t[1]).toBeCloseTo(-0.286 / 0.353, 5);
  });
});

describe('pixelsToTensor', () => {
  function random(width: number, height: number, seed: number): Uint8Array {
    let s = seed;
    return Uint8Array.from({ length: width * height * 4 }, () => ((s = (s * 1103515245 + 12345) & 0x7fffffff) >> 16) & 0xff);
  }
  /** The two-step path it replaces: the RGBA crop, then its tensor. */
  function twoStep(image: { data: Uint8Array; width: number; height: number }, config: PreprocessorConfig): Float32Array {
    const plan = planResize(image.width, image.height, config);
    const rgba = resizeRgba(image, plan.resizeWidth, plan.resizeHeight, resamplingOf(config), plan.crop);
    return rgbaToTensor(rgba.data, rgba.width, rgba.height, config, { ...plan, crop: { ...plan.crop, x: 0, y: 0 } });
  }
  const configs = {
    'torchvision, PIL bilinear': torchvision,
    'ViT, PIL bicubic': PreprocessorConfigSchema.parse({ size: { height: 224, width: 224 }, resample: 3, do_normalize: true, image_mean: [0.5, 0.5, 0.5], image_std: [0.5, 0.5, 0.5] }),
    'OCR, OpenCV linear, padded': ocrLine,
    'grayscale': mnist,
    'ConvNeXt crop_pct': PreprocessorConfigSchema.parse({ image_processor_type: 'ConvNextImageProcessor', size: { shortest_edge: 224 }, crop_pct: 0.875, resample: 3, do_rescale: false }),
  };
  // 256²: torchvision's resize is the identity and only its crop applies.
  const images = { 'downscale': [640, 480], 'upscale': [150, 90], 'tall, small': [37, 300], 'model size': [224, 224], 'resize size': [256, 256] } as const;

  for (const [name, config] of Object.entries(configs)) {
    it(`gives exactly the two-step path's numbers: ${name}`, () => {
      let seed = 1;
      for (const [width, height] of Object.values(images)) {
        const image = { data: random(width, height, seed++), width, height };
        const plan = planResize(width, height, config);
        const expected = Array.from(twoStep(image, config));
        expect(Array.from(pixelsToTensor(image, plan, config))).toEqual(expected);
        // Into a reused array holding another image's values.
        const stale = new Float32Array(expected.length).fill(42);
        expect(Array.from(pixelsToTensor(image, plan, config, stale))).toEqual(expected);
      }
    });
  }

  it('pads a crop larger than the resized image with black around it, as the two-step path does', () => {
    const config = PreprocessorConfigSchema.parse({ size: { height: 20, width: 30 }, do_center_crop: true, crop_size: { height: 24, width: 33 }, do_normalize: true, image_mean: [0.5, 0.5, 0.5], image_std: [0.5, 0.5, 0.5] });
    const image = { data: random(50, 40, 9), width: 50, height: 40 };
    const plan = planResize(50, 40, config);
    // transformers.js' center_crop: the image at the floor of half the difference (1.5 → 1).
    expect(plan).toMatchObject({ crop: { x: 0, y: 0, width: 30, height: 20 }, at: { x: 1, y: 2 }, box: { width: 33, height: 24 }, outWidth: 33, outHeight: 24 });
    const expected = Array.from(twoStep(image, config));
    expect(Array.from(pixelsToTensor(image, plan, config))).toEqual(expected);
    expect(Array.from(pixelsToTensor(image, plan, config, new Float32Array(expected.length).fill(42)))).toEqual(expected);
    // The border is black (pixel 0) normalised: -1; the grayscale path pads alike.
    expect([expected[0], expected[33 + 1], expected[23 * 33 + 32]]).toEqual([-1, expected[33 + 1], -1]);
    const gray = PreprocessorConfigSchema.parse({ ...config, do_convert_grayscale: true, image_mean: [0.5], image_std: [0.5] });
    expect(Array.from(pixelsToTensor(image, plan, gray))).toEqual(Array.from(twoStep(image, gray)));
  });

  it('crops one axis and pads the other, and pads then zero-pads with do_pad', () => {
    const config = PreprocessorConfigSchema.parse({ size: { height: 20, width: 30 }, do_center_crop: true, crop_size: { height: 10, width: 35 }, do_pad: true, pad_size: { height: 12, width: 40 }, do_normalize: true, image_mean: [0.5, 0.5, 0.5], image_std: [0.5, 0.5, 0.5] });
    const plan = planResize(30, 20, config);
    expect(plan).toMatchObject({ crop: { x: 0, y: 5, width: 30, height: 10 }, at: { x: 2, y: 0 }, box: { width: 35, height: 10 }, outWidth: 40, outHeight: 12 });
    const image = { data: new Uint8Array(30 * 20 * 4).fill(255), width: 30, height: 20 };
    const row = (y: number) => Array.from(pixelsToTensor(image, plan, config).subarray(y * 40, y * 40 + 40));
    // Black border (-1) at 0–1 and 32–34, the white image (1) between, zeros beyond the crop box.
    expect(row(0)).toEqual([-1, -1, ...new Array(30).fill(1), -1, -1, -1, 0, 0, 0, 0, 0]);
    expect(row(11)).toEqual(new Array(40).fill(0));
  });
});

describe('workingSize', () => {
  it('downscales images above 2048×2048 pixels to that many, keeping aspect; leaves smaller ones alone', () => {
    expect(workingSize(8000, 8000)).toEqual({ width: 2048, height: 2048, scaled: true });
    expect(workingSize(8000, 2000)).toEqual({ width: 4096, height: 1024, scaled: true });
    expect(workingSize(4000, 3000)).toEqual({ width: 2365, height: 1774, scaled: true });
    expect(workingSize(640, 480)).toEqual({ width: 640, height: 480, scaled: false });
    // A phone's screenshot is taller than 2048 px but within the budget: decoded whole.
    expect(workingSize(1170, 2532)).toEqual({ width: 1170, height: 2532, scaled: false });
  });

  it('keeps every side within 8192 px, even where the pixels are within the budget', () => {
    expect(workingSize(60000, 60)).toEqual({ width: 8192, height: 8, scaled: true });
  });
});

describe('jpegDecodeEighths', () => {
  it('decodes a 12 MP photo at the smallest eighth that leaves twice the resize', () => {
    // 4000×3000 resizes to 341×256; twice that is 682×512: 2/8 (1000×750), as 1/8 (500×375) is too small.
    expect(jpegDecodeEighths(4000, 3000, torchvision)).toBe(2);
    expect(jpegDecodeEighths(3000, 4000, torchvision)).toBe(2);
    // A text line 48 px high: twice is 96 of 2400, so 1/8 (300 px) is plenty.
    expect(jpegDecodeEighths(9600, 2400, ocrLine)).toBe(1);
  });

  it('never decodes above a 2048 px edge, and never below 1/8', () => {
    // Twice a 1024 px resize of a 2300 px square would be all of it; the 2048 px edge caps it at 7/8 (2013 px).
    const large = PreprocessorConfigSchema.parse({ size: { shortest_edge: 1024 }, do_center_crop: true, crop_size: 1024, do_normalize: true, image_mean: [0.5], image_std: [0.5] });
    expect(jpegDecodeEighths(2300, 2300, large)).toBe(7);
    // A 28×28 model on a 20000×4000 panorama: 1/8 (2500×500) is as small as a JPEG decoder goes.
    expect(jpegDecodeEighths(20000, 4000, mnist)).toBe(1);
  });

  it('leaves a JPEG within a 2048 px edge to the exact path', () => {
    expect(jpegDecodeEighths(2048, 1536, torchvision)).toBeUndefined();
    expect(jpegDecodeEighths(696, 613, torchvision)).toBeUndefined();
  });
});

/** A model that takes pixels as they are: the centre 224² of the image, unscaled. */
const unresizedCrop = PreprocessorConfigSchema.parse({ do_resize: false, size: { height: 224, width: 224 }, do_center_crop: true, crop_size: 224, do_normalize: true, image_mean: [0.5], image_std: [0.5] });

describe('nativeRegion', () => {
  it('gives a model that does not resize the crop of a photo beyond the working size, in its own pixels', () => {
    expect(nativeRegion(4000, 3000, unresizedCrop)).toEqual({ x: 1888, y: 1388, width: 224, height: 224 });
    expect(nativeRegion(3000, 4000, unresizedCrop)).toEqual({ x: 1388, y: 1888, width: 224, height: 224 });
    // Thinner than the crop: all of that side, laid in the middle of the crop's box by planResize.
    expect(nativeRegion(60000, 100, unresizedCrop)).toEqual({ x: 29888, y: 0, width: 224, height: 100 });
    // Its JPEG decoder never scales such a photo either: that, too, would widen the view.
    expect(jpegDecodeEighths(4000, 3000, unresizedCrop)).toBeUndefined();
    expect(jpegDecodeEighths(2710, 240, unresizedCrop)).toBeUndefined();
  });

  it('leaves a model that resizes, and an image within the working size, to the usual decode', () => {
    expect(nativeRegion(4000, 3000, torchvision)).toBeUndefined();
    expect(nativeRegion(2048, 2048, unresizedCrop)).toBeUndefined();
    expect(nativeRegion(2710, 240, unresizedCrop)).toBeUndefined();
  });

  it('refuses from the header a photo larger than what the model pads to', () => {
    const padded = PreprocessorConfigSchema.parse({ do_resize: false, size: { height: 48, width: 542 }, do_pad: true, pad_size: { height: 64, width: 600 }, do_normalize: true, image_mean: [0.5], image_std: [0.5] });
    expect(() => nativeRegion(4000, 3000, padded)).toThrow(InputError);
  });
});
