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
 * Resizes to `outWidth`×`outHeight` and returns only `region` of the result (a centre crop
 * need not compute the pixels it throws away: a third of the work for ImageNet-style 256→224).
 * The result is written into `into` when given (a caller that consumes it at once passes a
 * ScratchBuffer's), else into a new array.
 */
export function resizeRgba(src: Pixels, outWidth: number, outHeight: number, resampling: Resampling, region: Region = { x: 0, y: 0, width: outWidth, height: outHeight }, into?: ScratchBuffer): Pixels {
  const { width: w, height: h, data } = src;
  const whole = region.x === 0 && region.y === 0 && region.width === outWidth && region.height === outHeight;
  if (outWidth === w && outHeight === h && whole) return src;
  const taps = (inSize: number, outSize: number) => (resampling === 'linear' ? linearTaps(inSize, outSize) : pilTaps(inSize, outSize, FILTERS[resampling]));
  const tx = taps(w, outWidth);
  const ty = taps(h, outHeight);
  // The PIL-exact 8-bit path (an unchanged axis is an identity there too: one tap of weight 2^22).
  const fixed = resampling === 'bicubic';
  const wx = fixed ? toFixed(tx.weights) : tx.weights;
  const wy = fixed ? toFixed(ty.weights) : ty.weights;
  const rw = region.width;
  const rh = region.height;
  // Out-of-range region pixels (a crop larger than the image) clamp to the nearest edge.
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
  const out = into ? into.take(rw * rh * CHANNELS) : new Float32Array(rw * rh * CHANNELS);
  verticalPass(mid, rw, rows, ty, wy, fixed, out);
  return { data: out, width: rw, height: rh };
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
      store(mid, o, r, g, b, a, fixed);
    }
  }
}

function verticalPass(mid: Float32Array, rw: number, rows: Int32Array, t: Taps, weights: Float64Array | Int32Array, fixed: boolean, out: Float32Array): void {
  const stride = rw * CHANNELS;
  const { start, count, maxTaps } = t;
  const initial = fixed ? ROUNDING : 0;
  let o = 0;
  for (let y = 0; y < rows.length; y++) {
    const ry = rows[y]!;
    const n = count[ry]!;
    const first = start[ry]! * stride;
    const k0 = ry * maxTaps;
    for (let x = 0; x < rw; x++, o += CHANNELS) {
      let p = first + x * CHANNELS;
      let r = initial, g = initial, b = initial, a = initial;
      for (let j = 0; j < n; j++, p += stride) {
        const wt = weights[k0 + j]!;
        r += mid[p]! * wt;
        g += mid[p + 1]! * wt;
        b += mid[p + 2]! * wt;
        a += mid[p + 3]! * wt;
      }
      store(out, o, r, g, b, a, fixed);
    }
  }
}

/** One pixel's sums, as floats or (PIL's 8-bit path) clipped back to 0–255. */
function store(out: Float32Array, at: number, r: number, g: number, b: number, a: number, fixed: boolean): void {
  out[at] = fixed ? clip8(r) : r;
  out[at + 1] = fixed ? clip8(g) : g;
  out[at + 2] = fixed ? clip8(b) : b;
  out[at + 3] = fixed ? clip8(a) : a;
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
