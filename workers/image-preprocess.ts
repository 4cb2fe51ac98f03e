import { InputError } from '../src/runtime/errors.ts';
import { tensorSize, type PreprocessorConfig } from '../src/runtime/model-config.ts';
import { ScratchBuffer } from './buffers.ts';
import { resizeInto, resizeRgba, type Pixels, type Resampling } from './image-resize.ts';

/**
 * Image preprocessing split in two: a geometric plan (pure numbers) and a pixel → tensor
 * step over RGBA bytes (pure arrays, resampled by image-resize.ts). The browser-specific part,
 * decoding, lives in image-decode.ts and only executes the plan, so everything that decides
 * *what* the model sees is unit-tested here.
 */
export interface ResizePlan extends Placement {
  /** Size to resample the whole image to. */
  resizeWidth: number;
  resizeHeight: number;
}

/** Where a region of an image goes in the tensor. */
export interface Placement {
  /** Region of the (resized) image that becomes the tensor: the centre crop's part of it, or all of it. */
  crop: { x: number; y: number; width: number; height: number };
  /** Where the crop's top-left corner lands in the tensor. */
  at: { x: number; y: number };
  /**
   * The centre crop's size. Where it is larger than the image, transformers.js' center_crop pads
   * it with black, the image centred: that border is pixel value 0, rescaled and normalised.
   * The crop's own size when nothing is padded.
   */
  box: { width: number; height: number };
  /** Tensor spatial size; larger than `box` when padding (do_pad: zeros after normalisation). */
  outWidth: number;
  outHeight: number;
}

/** The placement of a whole `width`×`height` image as the tensor, nothing padded. */
const whole = (width: number, height: number): Placement => ({ crop: { x: 0, y: 0, width, height }, at: { x: 0, y: 0 }, box: { width, height }, outWidth: width, outHeight: height });

/**
 * One axis of transformers.js' center_crop (utils/image.js): an image longer than the crop is cut
 * at the floor of half the difference; a shorter one is laid in at the floor of half the
 * difference, black around it. Returns where the crop starts in the image, where the image
 * starts in the crop, and how much of the image is kept.
 */
function centre(size: number, target: number): [start: number, at: number, length: number] {
  return size >= target ? [Math.floor((size - target) / 2), 0, target] : [0, Math.floor((target - size) / 2), size];
}

/**
 * A model whose preprocessor neither resizes, crops nor pads takes the image as it is, so only an
 * image of exactly its input size fits (transformers.js hands ORT any other and fails there).
 * Said in the user's terms, from the file's header before anything is decoded.
 */
export function assertFitsUnresized(width: number, height: number, config: PreprocessorConfig): void {
  if (config.do_resize || config.do_center_crop || (config.do_pad && config.pad_size)) return;
  const target = tensorSize(config);
  if (!target || (target.width === width && target.height === height)) return;
  throw new InputError(
    `This model takes images of exactly ${target.width}×${target.height} pixels and does not resize them (do_resize: false); this one is ${width}×${height}.`,
    { reason: 'wrong-size', width, height, modelWidth: target.width, modelHeight: target.height },
  );
}

export function planResize(width: number, height: number, config: PreprocessorConfig): ResizePlan {
  let resizeWidth = width;
  let resizeHeight = height;
  const size = config.size;
  const mode = config.resize_mode ?? ('shortest_edge' in size ? 'shortest_edge' : 'stretch');

  if (config.do_resize) {
    if (mode === 'fit_height_pad_right') {
      if (!('height' in size)) throw new Error('fit_height_pad_right needs size.height and size.width');
      resizeHeight = size.height;
      resizeWidth = Math.min(size.width, Math.max(1, Math.ceil((size.height * width) / height)));
    } else if ('shortest_edge' in size && config.crop_pct !== undefined && size.shortest_edge >= 384) {
      // ConvNeXt at 384 and above: warp to a square, no crop.
      resizeWidth = size.shortest_edge;
      resizeHeight = size.shortest_edge;
    } else if ('shortest_edge' in size) {
      // Exactly transformers.js' get_resize_output_image_size: scale the short side to
      // shortest_edge (ConvNeXt: shortest_edge / crop_pct, floored), round to 2 decimals, then floor.
      const edge = config.crop_pct !== undefined ? Math.floor(size.shortest_edge / config.crop_pct) : size.shortest_edge;
      const factor = Math.max(edge / width, edge / height);
      resizeWidth = Math.max(1, Math.floor(Number((width * factor).toFixed(2))));
      resizeHeight = Math.max(1, Math.floor(Number((height * factor).toFixed(2))));
    } else {
      resizeWidth = size.width;
      resizeHeight = size.height;
    }
  }

  const placement = whole(resizeWidth, resizeHeight);
  // crop_pct's resize crops to shortest_edge² (a no-op when it warped to that size); the schema forbids both crops.
  const cropTo = config.do_resize && config.crop_pct !== undefined && 'shortest_edge' in size ? { width: size.shortest_edge, height: size.shortest_edge }
    : config.do_center_crop ? config.crop_size : undefined;
  if (cropTo) {
    const [x, atX, width] = centre(resizeWidth, cropTo.width);
    const [y, atY, height] = centre(resizeHeight, cropTo.height);
    placement.crop = { x, y, width, height };
    placement.at = { x: atX, y: atY };
    placement.box = { width: cropTo.width, height: cropTo.height };
  }
  placement.outWidth = placement.box.width;
  placement.outHeight = placement.box.height;
  if (config.do_pad && config.pad_size) {
    const pad = config.pad_size;
    const box = placement.box;
    // transformers.js' pad_image copies a larger image into pad_size row by row: it keeps the
    // top-left corner and wraps the clipped pixels into the padding. Refused rather than clipped.
    if (box.width > pad.width || box.height > pad.height) {
      throw new InputError(`The prepared image is ${box.width}×${box.height} pixels, larger than the model's pad_size (${pad.width}×${pad.height}): it would be clipped.`, { reason: 'unprepared', width: box.width, height: box.height, padWidth: pad.width, padHeight: pad.height });
    }
    placement.outWidth = pad.width;
    placement.outHeight = pad.height;
  }
  return { resizeWidth, resizeHeight, ...placement };
}

function perChannel(value: number | number[], channels: number): number[] {
  const list = Array.isArray(value) ? value : [value];
  return Array.from({ length: channels }, (_, c) => list[Math.min(c, list.length - 1)] ?? 0);
}

/** Which resampler the config asks for (resample 3 is PIL bicubic; the schema refuses others). */
export function resamplingOf(config: PreprocessorConfig): Resampling {
  if (config.resample === 3) return 'bicubic';
  return config.antialias ? 'bilinear' : 'linear';
}

export function channelCount(config: PreprocessorConfig): 1 | 3 {
  return config.do_convert_grayscale ? 1 : 3;
}

/**
 * Rescale and normalise folded into one multiply-add per value: `value × mul[c] + add[c]`.
 * Normalised only when do_normalize is true (absent is false, as in transformers.js); the schema
 * refuses do_normalize without image_mean and image_std.
 */
function affine(config: PreprocessorConfig): { mul: number[]; add: number[] } {
  const channels = channelCount(config);
  const mean = config.do_normalize ? perChannel(config.image_mean ?? 0, channels) : new Array<number>(channels).fill(0);
  const std = config.do_normalize ? perChannel(config.image_std ?? 1, channels) : new Array<number>(channels).fill(1);
  const scale = config.do_rescale ? config.rescale_factor : 1;
  return { mul: std.map((s) => scale / s), add: mean.map((m, c) => -m / std[c]!) };
}

/**
 * The CHW tensor a crop is laid into: `into` (any contents) or a new one. Only when the crop does
 * not cover it all (the common case writes every value): zeros (do_pad), and the centre crop's
 * black border within `box` — pixel value 0 after rescale and normalisation, `add[c]`.
 */
function tensorFor(channels: number, { crop, box, outWidth, outHeight }: Placement, add: readonly number[], into?: Float32Array): Float32Array {
  const tensor = into ?? new Float32Array(channels * outWidth * outHeight);
  if (crop.width === outWidth && crop.height === outHeight) return tensor;
  if (into) tensor.fill(0);
  if (crop.width < box.width || crop.height < box.height) {
    const plane = outWidth * outHeight;
    for (let c = 0; c < channels; c++) {
      for (let y = 0; y < box.height; y++) tensor.fill(add[c]!, c * plane + y * outWidth, c * plane + y * outWidth + box.width);
    }
  }
  return tensor;
}

/**
 * RGBA values (uint8 range, row-major, `width`×`height`) → CHW float tensor of the placement's
 * `crop` region (default: the whole image), laid in at `at` and padded as tensorFor says.
 * Alpha is dropped, as PIL's convert('RGB') does. Written into `into` when given (any contents).
 */
export function rgbaToTensor(
  rgba: ArrayLike<number>,
  width: number,
  height: number,
  config: PreprocessorConfig,
  placement: Placement = whole(width, height),
  into?: Float32Array,
): Float32Array {
  const { crop, at, outWidth, outHeight } = placement;
  const channels = channelCount(config);
  const plane = outWidth * outHeight;
  const { mul, add } = affine(config);
  const tensor = tensorFor(channels, placement, add, into);

  for (let y = 0; y < crop.height; y++) {
    const sy = Math.min(Math.max(y + crop.y, 0), height - 1);
    for (let x = 0; x < crop.width; x++) {
      const sx = Math.min(Math.max(x + crop.x, 0), width - 1);
      const src = (sy * width + sx) * 4;
      const dst = (y + at.y) * outWidth + x + at.x;
      if (channels === 1) {
        // ITU-R 601 luma, as PIL's convert('L').
        const luma = Math.round(0.299 * rgba[src]! + 0.587 * rgba[src + 1]! + 0.114 * rgba[src + 2]!);
        tensor[dst] = luma * mul[0]! + add[0]!;
      } else {
        tensor[dst] = rgba[src]! * mul[0]! + add[0]!;
        tensor[plane + dst] = rgba[src + 1]! * mul[1]! + add[1]!;
        tensor[2 * plane + dst] = rgba[src + 2]! * mul[2]! + add[2]!;
      }
    }
  }
  return tensor;
}

/** A grayscale model's resized crop, turned into its tensor as soon as it is made. */
const resizedRgba = new ScratchBuffer();

/**
 * Decoded pixels → the model's tensor as `plan` says: resampled, cropped, rescaled, normalised,
 * padded. Written into `into` when given (any contents). The same numbers as
 * `rgbaToTensor(resizeRgba(…))`; for colour models the resize writes the tensor itself, which
 * saves writing and reading an RGBA image between them: ShuffleNet's 224² → 256 → 224² crop took
 * 0.86–0.94 against 1.02–1.10 ms (Node, fastest of 15 interleaved blocks, AMD EPYC).
 */
export function pixelsToTensor(pixels: Pixels, plan: ResizePlan, config: PreprocessorConfig, into?: Float32Array): Float32Array {
  const { resizeWidth, resizeHeight, crop, at, outWidth, outHeight } = plan;
  if (resizeWidth === pixels.width && resizeHeight === pixels.height) {
    return rgbaToTensor(pixels.data, pixels.width, pixels.height, config, plan, into);
  }
  if (channelCount(config) === 1) {
    // Luma is computed from a pixel's three resized channels together: it needs the RGBA crop.
    const rgba = resizeRgba(pixels, resizeWidth, resizeHeight, resamplingOf(config), crop, resizedRgba);
    return rgbaToTensor(rgba.data, rgba.width, rgba.height, config, { ...plan, crop: { ...crop, x: 0, y: 0 } }, into);
  }
  const plane = outWidth * outHeight;
  const { mul, add } = affine(config);
  const tensor = tensorFor(3, plan, add, into);
  const first = at.y * outWidth + at.x;
  resizeInto(pixels, resizeWidth, resizeHeight, resamplingOf(config), crop, { data: tensor, offsets: [first, plane + first, 2 * plane + first], pixelStride: 1, rowStride: outWidth, scale: mul, shift: add });
  return tensor;
}

/** Largest image we decode at all: beyond this even a downscale would exhaust a phone. */
export const MAX_IMAGE_PIXELS = 100_000_000;
/**
 * Images are first scaled to at most this many pixels (2048×2048), keeping memory bounded. A
 * pixel budget rather than an edge: a tall screenshot or a long receipt within it is decoded
 * whole, as transformers.js reads it, instead of paying a high-quality resize first.
 */
const MAX_WORKING_PIXELS = 2048 * 2048;
/** …and to at most this many pixels on a side, which every browser's canvas takes. */
const MAX_WORKING_EDGE = 8192;
/**
 * A JPEG longer than this on a side has its decoder scale it (below): decoding it whole would
 * cost several times more (a 2560×1440 JPEG: ~14 against ~114 ms to its tensor).
 */
const JPEG_SCALED_ABOVE_EDGE = 2048;

/**
 * For a JPEG longer than JPEG_SCALED_ABOVE_EDGE: the scale, in eighths, to have the JPEG decoder
 * itself produce (it scales by n/8 while decoding, far cheaper than decoding every pixel and
 * then resizing). The smallest that still leaves the model's resize at least twice the pixels
 * it keeps on each side, so the final resample still averages as it would from the full photo;
 * within that edge unless even 1/8 is not. Undefined for a smaller JPEG (it is decoded whole,
 * exactly as the browser's own image path does) or when no scale below 8/8 qualifies.
 */
export function jpegDecodeEighths(width: number, height: number, config: PreprocessorConfig): number | undefined {
  const longest = Math.max(width, height);
  // A model that takes pixels as they are would see a scaled copy's pixels: see nativeRegion.
  if (longest <= JPEG_SCALED_ABOVE_EDGE || !config.do_resize) return undefined;
  const { resizeWidth, resizeHeight } = planResize(width, height, config);
  const needed = Math.ceil(8 * Math.max((2 * resizeWidth) / width, (2 * resizeHeight) / height));
  const fits = Math.floor((8 * JPEG_SCALED_ABOVE_EDGE) / longest);
  const eighths = Math.max(1, Math.min(needed, fits));
  return eighths < 8 ? eighths : undefined;
}

/** Size to downscale a huge image to before the model's own resize (keeps aspect). */
export function workingSize(width: number, height: number): { width: number; height: number; scaled: boolean } {
  const scale = Math.min(1, Math.sqrt(MAX_WORKING_PIXELS / (width * height)), MAX_WORKING_EDGE / Math.max(width, height));
  if (scale >= 1) return { width, height, scaled: false };
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)), scaled: true };
}

/**
 * For a model that takes pixels as they are (do_resize: false), the part of an image beyond the
 * working size that it keeps (its centre crop, in the image as displayed), to be decoded at full
 * scale and nothing else. A downscaled working copy would show it a wider view through the same
 * crop, where transformers.js crops the original. Undefined when the model resizes (a downscaled
 * copy resizes to nearly the same tensor) or the image is within the working size (decoded whole).
 * Refuses, from the header alone, an image the model's pad_size cannot hold.
 */
export function nativeRegion(width: number, height: number, config: PreprocessorConfig): ResizePlan['crop'] | undefined {
  if (config.do_resize || !workingSize(width, height).scaled) return undefined;
  return planResize(width, height, config).crop;
}
