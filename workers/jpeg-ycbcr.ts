/**
 * A JPEG's YCbCr samples turned into RGBA exactly as libjpeg-turbo turns them, the decoder behind
 * Chromium's (and so transformers.js') reading of a JPEG: "fancy" (triangle-filter) chroma
 * upsampling and its fixed-point colour conversion (jdsample.c and jdcolor.c, with the options
 * Chromium sets). WebCodecs' ImageDecoder hands a JPEG's planes over before that step, and its
 * own conversion (VideoFrame.copyTo as RGBA) differs from the browser's decode by up to 21 levels
 * per channel; written by hand because no library does this step alone, on planes it is given.
 * Tested against libjpeg-turbo's own output (workers/fixtures/jpeg-ycbcr.json) and, in Chromium,
 * against createImageBitmap (e2e/classify.spec.ts).
 */

/** The chroma layouts Chromium's JPEG decoder hands out as planes (WebCodecs pixel formats). */
export type YCbCrFormat = 'I444' | 'I422' | 'I420';
const YCBCR_FORMATS: ReadonlySet<string> = new Set<YCbCrFormat>(['I444', 'I422', 'I420']);

export function isYCbCrFormat(format: string | null): format is YCbCrFormat {
  return format !== null && YCBCR_FORMATS.has(format);
}

/** Where each of the three planes (Y, Cb, Cr) starts in the buffer, and its row length. */
export interface PlaneLayout {
  offset: number;
  stride: number;
}

// jdcolor.c's tables: 16 fractional bits, rounded as libjpeg rounds (FIX(x) = x·2¹⁶ + 0.5).
const CR_TO_R = new Int32Array(256);
const CB_TO_B = new Int32Array(256);
const CR_TO_G = new Int32Array(256);
const CB_TO_G = new Int32Array(256);
for (let i = 0; i < 256; i++) {
  const x = i - 128;
  CR_TO_R[i] = (91881 * x + 32768) >> 16;
  CB_TO_B[i] = (116130 * x + 32768) >> 16;
  CR_TO_G[i] = -46802 * x;
  CB_TO_G[i] = -22554 * x + 32768;
}
/** libjpeg's range_limit: a sum of luma and a chroma term, offset by LIMIT_OFFSET, clamped to 0–255. */
const LIMIT_OFFSET = 384;
const LIMIT = new Uint8Array(1024).map((_, i) => Math.min(255, Math.max(0, i - LIMIT_OFFSET)));

/**
 * One row of a horizontally halved plane at full width (h2v1_fancy_upsample): each output sample
 * is ¾ of its nearer input and ¼ of the next, with libjpeg's alternating rounding. A plane two
 * samples wide or less is replicated instead, as libjpeg does.
 */
function upsampleRow(src: Uint8Array, start: number, samples: number, out: Uint8Array, width: number): void {
  if (samples <= 2) {
    for (let x = 0; x < width; x++) out[x] = src[start + (x >> 1)]!;
    return;
  }
  const last = start + samples - 1;
  let o = 0;
  let v = src[start]!;
  out[o++] = v;
  out[o++] = (v * 3 + src[start + 1]! + 2) >> 2;
  for (let i = start + 1; i < last; i++) {
    v = src[i]! * 3;
    out[o++] = (v + src[i - 1]! + 1) >> 2;
    out[o++] = (v + src[i + 1]! + 2) >> 2;
  }
  v = src[last]!;
  out[o++] = (v * 3 + src[last - 1]! + 1) >> 2;
  if (o < width) out[o] = v;
}

/**
 * One output row of a plane halved both ways (h2v2_fancy_upsample): ¾ of the nearer input row and
 * ¼ of the other (`far`: the row above for an even output row, below for an odd one, the edge row
 * itself at the image's edges), then ¾/¼ across, with libjpeg's rounding.
 */
function upsampleRow2(src: Uint8Array, near: number, far: number, samples: number, out: Uint8Array, width: number): void {
  if (samples <= 2) {
    for (let x = 0; x < width; x++) out[x] = src[near + (x >> 1)]!;
    return;
  }
  let o = 0;
  let previous = src[near]! * 3 + src[far]!;
  let current = previous;
  let next = src[near + 1]! * 3 + src[far + 1]!;
  out[o++] = (current * 4 + 8) >> 4;
  out[o++] = (current * 3 + next + 7) >> 4;
  for (let i = 2; i < samples; i++) {
    previous = current;
    current = next;
    next = src[near + i]! * 3 + src[far + i]!;
    out[o++] = (current * 3 + previous + 8) >> 4;
    out[o++] = (current * 3 + next + 7) >> 4;
  }
  out[o++] = (next * 3 + current + 8) >> 4;
  if (o < width) out[o] = (next * 4 + 7) >> 4;
}

/** Fills `out` (width × height RGBA, opaque) from the planes of a decoded JPEG. */
export function ycbcrToRgba(data: Uint8Array, layout: readonly PlaneLayout[], format: YCbCrFormat, width: number, height: number, out: Uint8ClampedArray): void {
  const [luma, blue, red] = layout as [PlaneLayout, PlaneLayout, PlaneLayout];
  const chromaWidth = format === 'I444' ? width : (width + 1) >> 1;
  const chromaRows = format === 'I420' ? (height + 1) >> 1 : height;
  const cbRow = new Uint8Array(width);
  const crRow = new Uint8Array(width);
  for (let y = 0; y < height; y++) {
    let cb: Uint8Array = cbRow;
    let cr: Uint8Array = crRow;
    let cbStart = 0;
    let crStart = 0;
    if (format === 'I444') {
      // Full-resolution chroma is read where it lies.
      cb = cr = data;
      cbStart = blue.offset + y * blue.stride;
      crStart = red.offset + y * red.stride;
    } else if (format === 'I422') {
      upsampleRow(data, blue.offset + y * blue.stride, chromaWidth, cbRow, width);
      upsampleRow(data, red.offset + y * red.stride, chromaWidth, crRow, width);
    } else {
      const row = y >> 1;
      const other = y & 1 ? Math.min(row + 1, chromaRows - 1) : Math.max(row - 1, 0);
      upsampleRow2(data, blue.offset + row * blue.stride, blue.offset + other * blue.stride, chromaWidth, cbRow, width);
      upsampleRow2(data, red.offset + row * red.stride, red.offset + other * red.stride, chromaWidth, crRow, width);
    }
    const lumaStart = luma.offset + y * luma.stride;
    let o = y * width * 4;
    for (let x = 0; x < width; x++) {
      const l = data[lumaStart + x]! + LIMIT_OFFSET;
      const b = cb[cbStart + x]!;
      const r = cr[crStart + x]!;
      out[o] = LIMIT[l + CR_TO_R[r]!]!;
      out[o + 1] = LIMIT[l + ((CB_TO_G[b]! + CR_TO_G[r]!) >> 16)]!;
      out[o + 2] = LIMIT[l + CB_TO_B[b]!]!;
      out[o + 3] = 255;
      o += 4;
    }
  }
}
