/**
 * Resampling in plain JS instead of the canvas: browsers' drawImage/createImageBitmap filters
 * differ between engines and quality settings, and a model only keeps its measured accuracy
 * when it sees the pixels its training pipeline produced. Three conventions, chosen per model:
 *
 * - 'linear' — OpenCV INTER_LINEAR / PyTorch interpolate(antialias=False): bilinear with
 *   half-pixel centres and edge clamping (PaddleOCR uses cv2.resize).
 * - 'bilinear' — PIL's BILINEAR (what Hugging Face image processors and torchvision on PIL
 *   images do): a triangle filter widened by the scale factor when shrinking, so large
 *   downscales average all source pixels instead of aliasing. In float, no rounding between passes.
 * - 'bicubic' — PIL's BICUBIC (`resample: 3`, ViT/DeiT/ConvNeXt configs), bit-exact: PIL's cubic
 *   filter (a = -0.5) with the same support widening, 22-bit fixed-point weights, and a rounded,
 *   clipped 8-bit image after each pass (the overshoot of a cubic filter is clipped as PIL does).
 *
 * Works on interleaved RGBA (4 values per pixel).
 */
import { ScratchBuffer } from './buffers.ts';

export type Resampling = 'linear' | 'bilinear' | 'bicubic';

export interface Pixels {
  data: ArrayLike<number>;
  width: number;
  height: number;
}

const CHANNELS = 4;

interface Taps {
  /** First source index for each output index. */
  start: Int32Array;
  /** Number of taps for each output index. */
  count: Int32Array;
  /** Weights, `maxTaps` per output index (double precision, as PIL computes them). */
  weights: Float64Array;
  maxTaps: number;
}

/** Interpolation taps of one axis, OpenCV convention (two taps, clamped). */
function linearTaps(inSize: number, outSize: number): Taps {
  const start = new Int32Array(outSize);
  const count = new Int32Array(outSize).fill(2);
  const weights = new Float64Array(outSize * 2);
  const scale = inSize / outSize;
  for (let i = 0; i < outSize; i++) {
    const s = Math.min(Math.max((i + 0.5) * scale - 0.5, 0), inSize - 1);
    const i0 = Math.floor(s);
    const f = s - i0;
    start[i] = i0;
    if (i0 + 1 > inSize - 1) {
      count[i] = 1;
      weights[i * 2] = 1;
    } else {
      weights[i * 2] = 1 - f;
      weights[i * 2 + 1] = f;
    }
  }
  return { start, count, weights, maxTaps: 2 };
}

interface Filter {
  support: number;
  weight: (x: number) => number;
}

/** PIL's filters (libImaging/Resample.c). */
const FILTERS: Record<'bilinear' | 'bicubic', Filter> = {
  bilinear: { support: 1, weight: (x) => Math.max(0, 1 - Math.abs(x)) },
  bicubic: {
    support: 2,
    weight: (x) => {
      const a = -0.5;
      const t = Math.abs(x);
      if (t < 1) return ((a + 2) * t - (a + 3)) * t * t + 1;
      if (t < 2) return (((t - 5) * t + 8) * t - 4) * a;
      return 0;
    },
  },
};

/** Taps of one axis, PIL convention (the filter's support grows with the downscale factor). */
function pilTaps(inSize: number, outSize: number, filter: Filter): Taps {
  const scale = inSize / outSize;
  const filterScale = Math.max(scale, 1);
  const support = filter.support * filterScale;
  const maxTaps = Math.ceil(support) * 2 + 1;
  const start = new Int32Array(outSize);
  const count = new Int32Array(outSize);
  const weights = new Float64Array(outSize * maxTaps);
  for (let i = 0; i < outSize; i++) {
    const center = (i + 0.5) * scale;
    const lo = Math.max(0, Math.floor(center - support + 0.5));
    const hi = Math.min(inSize, Math.floor(center + support + 0.5));
    let total = 0;
    for (let x = lo; x < hi; x++) {
      const w = filter.weight((x - center + 0.5) / filterScale);
      weights[i * maxTaps + (x - lo)] = w;
      total += w;
    }
    if (total !== 0) for (let x = lo; x < hi; x++) weights[i * maxTaps + (x - lo)]! /= total;
    start[i] = lo;
    count[i] = hi - lo;
  }
  return { start, count, weights, maxTaps };
}

/** The horizontal pass's output, read only by the vertical pass of the same call. */
const betweenPasses = new ScratchBuffer();

export interface Region {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * Where the vertical pass writes: channel c of the region's pixel (x, y) goes to
 * `data[offsets[c] + y * rowStride + x * pixelStride]`, as `value × scale[c] + shift[c]`, so a
 * model's CHW tensor is filled, rescaled and normalised in the same pass (no RGBA image between
 * the resize and the tensor). Three offsets leave alpha out; the value is the 32-bit float an
 * RGBA result would hold, so both layouts give the same numbers.
 */
export interface PixelLayout {
  data: Float32Array;
  offsets: readonly number[];
  pixelStride: number;
  rowStride: number;
  scale: readonly number[];
  shift: readonly number[];
}

/**
 * Resizes to `outWidth`×`outHeight` and returns only `region` of the result (a centre crop
 * need not compute the pixels it throws away: a third of the work for ImageNet-style 256→224).
 * The result is written into `into` when given (a caller that consumes it at once passes a
 * ScratchBuffer's), else into a new array.
 */
export function resizeRgba(src: Pixels, outWidth: number, outHeight: number, resampling: Resampling, region: Region = { x: 0, y: 0, width: outWidth, height: outHeight }, into?: ScratchBuffer): Pixels {
  const whole = region.x === 0 && region.y === 0 && region.width === outWidth && region.height === outHeight;
  if (outWidth === src.width && outHeight === src.height && whole) return src;
  const { width, height } = region;
  const data = into ? into.take(width * height * CHANNELS) : new Float32Array(width * height * CHANNELS);
  resizeInto(src, outWidth, outHeight, resampling, region, { data, offsets: [0, 1, 2, 3], pixelStride: CHANNELS, rowStride: width * CHANNELS, scale: [1, 1, 1, 1], shift: [0, 0, 0, 0] });
  return { data, width, height };
}

/** Resizes as `resizeRgba` does and writes `region` of the result where `layout` says. */
export function resizeInto(src: Pixels, outWidth: number, outHeight: number, resampling: Resampling, region: Region, layout: PixelLayout): void {
  const { width: w, height: h, data } = src;
  const taps = (inSize: number, outSize: number) => (resampling === 'linear' ? linearTaps(inSize, outSize) : pilTaps(inSize, outSize, FILTERS[resampling]));
  const tx = taps(w, outWidth);
  const ty = taps(h, outHeight);
  // The PIL-exact 8-bit path (an unchanged axis is an identity there too: one tap of weight 2^22).
  const fixed = resampling === 'bicubic';
  const wx = fixed ? toFixed(tx.weights) : tx.weights;
  const wy = fixed ? toFixed(ty.weights) : ty.weights;
  const rw = region.width;
  const rh = region.height;
  // Out-of-range region pixels clamp to the nearest edge (planResize never asks for any: it pads).
  const cols = Int32Array.from({ length: rw }, (_, x) => Math.min(Math.max(x + region.x, 0), outWidth - 1));
  const rows = Int32Array.from({ length: rh }, (_, y) => Math.min(Math.max(y + region.y, 0), outHeight - 1));

  // Source rows the vertical pass will read.
  let rowLo = h;
  let rowHi = 0;
  for (const r of rows) {
    rowLo = Math.min(rowLo, ty.start[r]!);
    rowHi = Math.max(rowHi, ty.start[r]! + ty.count[r]!);
  }

  // Horizontal pass over the needed source rows, region columns only.
  const mid = betweenPasses.take(rw * h * CHANNELS);
  horizontalPass(data, w, rowLo, rowHi, cols, tx, wx, fixed, mid);
  // Vertical pass, region rows only.
  verticalPass(mid, rw, rows, ty, wy, fixed, layout);
}

/*
 * The two passes: plain loops over typed arrays, no call per pixel, each pass reading one kind
 * of array. This is the hot loop of every image request: one per-pixel helper shared by both
 * passes (so reading bytes and floats alike) took 1.3–1.5× as long (Node), and a closure per tap
 * once made it a third of ShuffleNet's whole request. Taps are added in source order.
 */
function horizontalPass(src: ArrayLike<number>, w: number, rowLo: number, rowHi: number, cols: Int32Array, t: Taps, weights: Float64Array | Int32Array, fixed: boolean, mid: Float32Array): void {
  const rw = cols.length;
  const { start, count, maxTaps } = t;
  const initial = fixed ? ROUNDING : 0;
  for (let y = rowLo; y < rowHi; y++) {
    let o = y * rw * CHANNELS;
    for (let x = 0; x < rw; x++, o += CHANNELS) {
      const cx = cols[x]!;
      const n = count[cx]!;
      let p = (y * w + start[cx]!) * CHANNELS;
      let k = cx * maxTaps;
      let r = initial, g = initial, b = initial, a = initial;
      for (let j = 0; j < n; j++, p += CHANNELS, k++) {
        const wt = weights[k]!;
        r += src[p]! * wt;
        g += src[p + 1]! * wt;
        b += src[p + 2]! * wt;
        a += src[p + 3]! * wt;
      }
      // The float path needs no rounding here: storing into a Float32Array is that rounding.
      mid[o] = fixed ? clip8(r) : r;
      mid[o + 1] = fixed ? clip8(g) : g;
      mid[o + 2] = fixed ? clip8(b) : b;
      mid[o + 3] = fixed ? clip8(a) : a;
    }
  }
}

function verticalPass(mid: Float32Array, rw: number, rows: Int32Array, t: Taps, weights: Float64Array | Int32Array, fixed: boolean, layout: PixelLayout): void {
  const stride = rw * CHANNELS;
  const { start, count, maxTaps } = t;
  const initial = fixed ? ROUNDING : 0;
  const { data, pixelStride, rowStride, offsets, scale, shift } = layout;
  // Each channel's offset, scale and shift read once here, not per pixel.
  const [o0 = 0, o1 = 0, o2 = 0] = offsets;
  const o3 = offsets[3] ?? -1;
  const [s0 = 1, s1 = 1, s2 = 1, s3 = 1] = scale;
  const [t0 = 0, t1 = 0, t2 = 0, t3 = 0] = shift;
  for (let y = 0; y < rows.length; y++) {
    const ry = rows[y]!;
    const n = count[ry]!;
    const first = start[ry]! * stride;
    const k0 = ry * maxTaps;
    let at = y * rowStride;
    for (let x = 0; x < rw; x++, at += pixelStride) {
      let p = first + x * CHANNELS;
      let r = initial, g = initial, b = initial, a = initial;
      for (let j = 0; j < n; j++, p += stride) {
        const wt = weights[k0 + j]!;
        r += mid[p]! * wt;
        g += mid[p + 1]! * wt;
        b += mid[p + 2]! * wt;
        a += mid[p + 3]! * wt;
      }
      data[o0 + at] = settle(r, fixed) * s0 + t0;
      data[o1 + at] = settle(g, fixed) * s1 + t1;
      data[o2 + at] = settle(b, fixed) * s2 + t2;
      if (o3 >= 0) data[o3 + at] = settle(a, fixed) * s3 + t3;
    }
  }
}

/**
 * The vertical pass's sum as the 8-bit value PIL keeps (its fixed-point path), or as the 32-bit
 * float an RGBA result holds: the tensor is computed from the same value whichever layout is written.
 */
function settle(sum: number, fixed: boolean): number {
  return fixed ? clip8(sum) : Math.fround(sum);
}

/** PIL's fixed point for 8-bit images: weights scaled by 2^22, rounded half away from zero. */
const PRECISION_BITS = 32 - 8 - 2;
const ROUNDING = 1 << (PRECISION_BITS - 1);
function toFixed(weights: Float64Array): Int32Array {
  return Int32Array.from(weights, (w) => Math.trunc(w * (1 << PRECISION_BITS) + (w < 0 ? -0.5 : 0.5)));
}
/** Back to 0–255 after a pass: PIL's clip8 (an arithmetic shift, then clamping). */
function clip8(sum: number): number {
  return Math.min(255, Math.max(0, Math.floor(sum / (1 << PRECISION_BITS))));
}
