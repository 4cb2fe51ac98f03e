// Minimal PNG decoder for Node (node:zlib only), enough for the PNG files the Lantern model
// recipes write: bit depth 8, non-interlaced, colour type 0 (gray), 2 (RGB), 4 (gray+alpha)
// or 6 (RGBA); all five scanline filters. Anything else throws.
import { inflateSync } from 'node:zlib';

const SIGNATURE = [137, 80, 78, 71, 13, 10, 26, 10];
const CHANNELS = { 0: 1, 2: 3, 4: 2, 6: 4 };

/**
 * @param {Uint8Array} bytes PNG file contents
 * @returns {{width:number, height:number, channels:1|2|3|4, data:Uint8Array}} row-major, interleaved
 */
export function decodePng(bytes) {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  SIGNATURE.forEach((b, i) => { if (buf[i] !== b) throw new Error('not a PNG file'); });
  let pos = 8;
  let width = 0, height = 0, channels = 0;
  const idat = [];
  while (pos < buf.length) {
    const len = buf.readUInt32BE(pos);
    const type = buf.toString('latin1', pos + 4, pos + 8);
    const body = buf.subarray(pos + 8, pos + 8 + len);
    pos += 12 + len;
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      const [depth, colorType, , , interlace] = body.subarray(8, 13);
      if (depth !== 8) throw new Error(`unsupported PNG bit depth ${depth}`);
      if (!(colorType in CHANNELS)) throw new Error(`unsupported PNG colour type ${colorType}`);
      if (interlace !== 0) throw new Error('interlaced PNG not supported');
      channels = CHANNELS[colorType];
    } else if (type === 'IDAT') {
      idat.push(body);
    } else if (type === 'IEND') {
      break;
    }
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const out = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const src = y * (stride + 1) + 1;
    const row = y * stride;
    const prev = row - stride;
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? out[row + x - channels] : 0;
      const b = y > 0 ? out[prev + x] : 0;
      const c = x >= channels && y > 0 ? out[prev + x - channels] : 0;
      let v = raw[src + x];
      switch (filter) {
        case 0: break;
        case 1: v += a; break;
        case 2: v += b; break;
        case 3: v += (a + b) >> 1; break;
        case 4: {
          const p = a + b - c;
          const pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
          v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
          break;
        }
        default: throw new Error(`bad PNG filter ${filter} in row ${y}`);
      }
      out[row + x] = v & 255;
    }
  }
  return { width, height, channels, data: out };
}

/** Copy of the rectangle {x, y, w, h} of a decoded image (same channel count). */
export function crop(img, { x, y, w, h }) {
  const c = img.channels;
  const data = new Uint8Array(w * h * c);
  for (let r = 0; r < h; r++) {
    const from = ((y + r) * img.width + x) * c;
    data.set(img.data.subarray(from, from + w * c), r * w * c);
  }
  return { width: w, height: h, channels: c, data };
}

/** The image rotated by 180 degrees (exact: pixel order reversed). */
export function rotate180(img) {
  const c = img.channels;
  const n = img.width * img.height;
  const data = new Uint8Array(n * c);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < c; k++) data[(n - 1 - i) * c + k] = img.data[i * c + k];
  }
  return { ...img, data };
}
