/**
 * Resampling in plain JS instead of the canvas: browsers' drawImage/createImageBitmap filters
 * differ between engines and quality settings, and a model only keeps its measured accuracy
 * when it sees the pixels its training pipeline produced. Two conventions, chosen per model:
 *
 * - antialias off — OpenCV INTER_LINEAR / PyTorch interpolate(antialias=False): bilinear with
 *   half-pixel centres and edge clamping (PaddleOCR uses cv2.resize).
 * - antialias on — PIL's BILINEAR (what Hugging Face image processors and torchvision on PIL
 *   images do): a triangle filter widened by the scale factor when shrinking, so large
 *   downscales average all source pixels instead of aliasing.
 *
 * Works on interleaved RGBA (4 values per pixel), in float, without rounding between passes.
 */
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
  /** Weights, `maxTaps` per output index. */
  weights: Float32Array;
  maxTaps: number;
}

/** Interpolation taps of one axis, OpenCV convention (two taps, clamped). */
function linearTaps(inSize: number, outSize: number): Taps {
  const start = new Int32Array(outSize);
  const count = new Int32Array(outSize).fill(2);
  const weights = new Float32Array(outSize * 2);
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

/** Triangle-filter taps of one axis, PIL convention (support grows with the downscale factor). */
function antialiasTaps(inSize: number, outSize: number): Taps {
  const scale = inSize / outSize;
  const filterScale = Math.max(scale, 1);
  const support = filterScale; // triangle support 1, widened
  const maxTaps = Math.ceil(support) * 2 + 1;
  const start = new Int32Array(outSize);
  const count = new Int32Array(outSize);
  const weights = new Float32Array(outSize * maxTaps);
  for (let i = 0; i < outSize; i++) {
    const center = (i + 0.5) * scale;
    const lo = Math.max(0, Math.floor(center - support + 0.5));
    const hi = Math.min(inSize, Math.floor(center + support + 0.5));
    let total = 0;
    for (let x = lo; x < hi; x++) {
      const w = Math.max(0, 1 - Math.abs((x - center + 0.5) / filterScale));
      weights[i * maxTaps + (x - lo)] = w;
      total += w;
    }
    for (let x = lo; x < hi; x++) weights[i * maxTaps + (x - lo)]! /= total || 1;
    start[i] = lo;
    count[i] = hi - lo;
  }
  return { start, count, weights, maxTaps };
}

export interface Region {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * Resizes to `outWidth`×`outHeight` and returns only `region` of the result (a centre crop
 * need not compute the pixels it throws away: a third of the work for ImageNet-style 256→224).
 */
export function resizeRgba(src: Pixels, outWidth: number, outHeight: number, antialias: boolean, region: Region = { x: 0, y: 0, width: outWidth, height: outHeight }): Pixels {
  const { width: w, height: h, data } = src;
  const whole = region.x === 0 && region.y === 0 && region.width === outWidth && region.height === outHeight;
  if (outWidth === w && outHeight === h && whole) return src;
  const taps = antialias ? antialiasTaps : linearTaps;
  const tx = taps(w, outWidth);
  const ty = taps(h, outHeight);
  const rw = region.width;
  const rh = region.height;
  // Out-of-range region pixels (a crop larger than the image) clamp to the nearest edge.
  const col = (x: number) => Math.min(Math.max(x + region.x, 0), outWidth - 1);
  const row = (y: number) => Math.min(Math.max(y + region.y, 0), outHeight - 1);

  // Source rows the vertical pass will read.
  let rowLo = h;
  let rowHi = 0;
  for (let y = 0; y < rh; y++) {
    const r = row(y);
    rowLo = Math.min(rowLo, ty.start[r]!);
    rowHi = Math.max(rowHi, ty.start[r]! + ty.count[r]!);
  }

  // Horizontal pass over the needed source rows, region columns only.
  const mid = new Float32Array(rw * h * CHANNELS);
  for (let y = rowLo; y < rowHi; y++) {
    for (let x = 0; x < rw; x++) {
      const cx = col(x);
      const base = cx * tx.maxTaps;
      for (let c = 0; c < CHANNELS; c++) {
        let acc = 0;
        for (let k = 0; k < tx.count[cx]!; k++) acc += data[(y * w + tx.start[cx]! + k) * CHANNELS + c]! * tx.weights[base + k]!;
        mid[(y * rw + x) * CHANNELS + c] = acc;
      }
    }
  }
  // Vertical pass, region rows only.
  const out = new Float32Array(rw * rh * CHANNELS);
  for (let y = 0; y < rh; y++) {
    const r = row(y);
    const base = r * ty.maxTaps;
    for (let x = 0; x < rw; x++) {
      for (let c = 0; c < CHANNELS; c++) {
        let acc = 0;
        for (let k = 0; k < ty.count[r]!; k++) acc += mid[((ty.start[r]! + k) * rw + x) * CHANNELS + c]! * ty.weights[base + k]!;
        out[(y * rw + x) * CHANNELS + c] = acc;
      }
    }
  }
  return { data: out, width: rw, height: rh };
}
