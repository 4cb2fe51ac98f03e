/**
 * Reads an image's pixel size from its first bytes without decoding it, so that an
 * "image bomb" (a tiny file that claims gigapixels) is refused before the browser allocates
 * anything, and so that huge photos can be decoded straight to a smaller size.
 * Width/height are as displayed: JPEG EXIF orientations 5–8 swap them.
 */
export interface ImageHeader {
  /** 'heic' is recognised only to be refused by name (browsers other than Safari cannot decode it). */
  format: 'png' | 'jpeg' | 'gif' | 'webp' | 'bmp' | 'avif' | 'heic';
  width: number;
  height: number;
  /** JPEG only, when the EXIF orientation is not 1: the stored pixels are turned or mirrored. */
  exifOrientation?: number;
}

function u16be(b: Uint8Array, o: number): number { return (b[o]! << 8) | b[o + 1]!; }
function u16le(b: Uint8Array, o: number): number { return b[o]! | (b[o + 1]! << 8); }
function u32be(b: Uint8Array, o: number): number { return ((b[o]! << 24) >>> 0) + ((b[o + 1]! << 16) | (b[o + 2]! << 8) | b[o + 3]!); }
function u32le(b: Uint8Array, o: number): number { return ((b[o + 3]! << 24) >>> 0) + ((b[o + 2]! << 16) | (b[o + 1]! << 8) | b[o]!); }
function ascii(b: Uint8Array, o: number, n: number): string { return String.fromCharCode(...b.subarray(o, o + n)); }

/**
 * The size the browser will decode `b` at, or null when it cannot be told from these bytes. The
 * signatures are tried in the order Chromium sniffs them (image_decoder.cc: JPEG, PNG, GIF, WebP,
 * BMP, then AVIF): the bytes, not the file's type, pick the decoder, so a file matching two
 * formats (a BMP whose bytes 4–7 read `ftyp`) is measured as the one the browser decodes.
 */
export function readImageHeader(b: Uint8Array): ImageHeader | null {
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8) return readJpeg(b);
  if (b.length >= 24 && b[0] === 0x89 && ascii(b, 1, 3) === 'PNG' && ascii(b, 12, 4) === 'IHDR') {
    return { format: 'png', width: u32be(b, 16), height: u32be(b, 20) };
  }
  if (b.length >= 13 && ascii(b, 0, 3) === 'GIF') return readGif(b);
  if (b.length >= 30 && ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 4) === 'WEBP') return readWebp(b);
  if (b.length >= 26 && ascii(b, 0, 2) === 'BM') return readBmp(b);
  if (b.length >= 16 && ascii(b, 4, 4) === 'ftyp') return readHeif(b);
  return null;
}

/**
 * A GIF is decoded at its logical screen grown to its first frame's bounds when that frame is
 * larger (Chromium's GIF reader, Wuffs without strict bounds, Firefox): a 1×1 screen may carry
 * a 20,000² frame. Null when the first frame is not in these bytes.
 */
function readGif(b: Uint8Array): ImageHeader | null {
  const packed = b[10]!;
  // Header (6), logical screen descriptor (7), then the global colour table if flagged.
  let o = 13 + (packed & 0x80 ? 3 << ((packed & 7) + 1) : 0);
  while (o < b.length) {
    const block = b[o]!;
    if (block === 0x2c) {
      if (o + 9 > b.length) return null;
      const width = Math.max(u16le(b, 6), u16le(b, o + 1) + u16le(b, o + 5));
      const height = Math.max(u16le(b, 8), u16le(b, o + 3) + u16le(b, o + 7));
      return { format: 'gif', width, height };
    }
    // Anything but an extension (its label, then sub-blocks up to an empty one) has no frame before it.
    if (block !== 0x21) return null;
    o += 2;
    while (o < b.length && b[o] !== 0) o += b[o]! + 1;
    o++;
  }
  return null;
}

/** BITMAPCOREHEADER (OS/2, 12 bytes) keeps 16-bit sizes; every later header 32-bit ones (negative height: top-down). */
function readBmp(b: Uint8Array): ImageHeader {
  if (u32le(b, 14) === 12) return { format: 'bmp', width: u16le(b, 18), height: u16le(b, 20) };
  return { format: 'bmp', width: Math.abs(u32le(b, 18) | 0), height: Math.abs(u32le(b, 22) | 0) };
}

function readJpeg(b: Uint8Array): ImageHeader | null {
  let offset = 2;
  let orientation = 1;
  while (offset + 9 < b.length) {
    if (b[offset] !== 0xff) { offset++; continue; }
    const marker = b[offset + 1]!;
    if (marker === 0xff) { offset++; continue; }
    const length = u16be(b, offset + 2);
    if (marker === 0xe1 && ascii(b, offset + 4, 4) === 'Exif') orientation = readExifOrientation(b, offset + 10) ?? orientation;
    // SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC) carry the frame size.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      const height = u16be(b, offset + 5);
      const width = u16be(b, offset + 7);
      const turned = orientation >= 5 && orientation <= 8;
      return { format: 'jpeg', width: turned ? height : width, height: turned ? width : height, ...(orientation !== 1 ? { exifOrientation: orientation } : {}) };
    }
    offset += 2 + length;
  }
  return null;
}

function readExifOrientation(b: Uint8Array, tiff: number): number | null {
  if (tiff + 8 > b.length) return null;
  const little = ascii(b, tiff, 2) === 'II';
  const r16 = (o: number) => (little ? u16le(b, o) : u16be(b, o));
  const r32 = (o: number) => (little ? u32le(b, o) : u32be(b, o));
  const ifd = tiff + r32(tiff + 4);
  if (ifd + 2 > b.length) return null;
  const count = r16(ifd);
  for (let i = 0; i < count; i++) {
    const entry = ifd + 2 + i * 12;
    if (entry + 12 > b.length) return null;
    if (r16(entry) === 0x0112) return r16(entry + 8);
  }
  return null;
}

const AVIF_BRANDS = new Set(['avif', 'avis']);
const HEIC_BRANDS = new Set(['heic', 'heix', 'hevc', 'hevx', 'heim', 'heis', 'mif1', 'msf1']);

/**
 * AVIF and HEIC share one container (ISO BMFF, HEIF): the `ftyp` box names the brands, an
 * `ispe` property box per image gives its size. Every `ispe` in the first bytes is read and the
 * largest wins, so a grid image cannot hide its full size behind a small first tile. An AVIF
 * with no `ispe` there (its `meta` after the pixel data, or none) cannot be measured: null,
 * not a size of 0 that every limit would let through.
 */
function readHeif(b: Uint8Array): ImageHeader | null {
  const boxSize = u32be(b, 0);
  const brands: string[] = [];
  for (let o = 8; o + 4 <= Math.min(boxSize, b.length); o += 4) if (o !== 12) brands.push(ascii(b, o, 4));
  const format = brands.some((brand) => AVIF_BRANDS.has(brand)) ? 'avif' : brands.some((brand) => HEIC_BRANDS.has(brand)) ? 'heic' : null;
  if (!format) return null;
  let width = 0;
  let height = 0;
  for (let o = b.indexOf(0x69); o >= 0 && o + 16 <= b.length; o = b.indexOf(0x69, o + 1)) {
    if (ascii(b, o, 4) !== 'ispe') continue;
    const w = u32be(b, o + 8);
    const h = u32be(b, o + 12);
    if (w * h > width * height) [width, height] = [w, h];
  }
  // A HEIC is refused by name whatever its size.
  if (format === 'avif' && width * height === 0) return null;
  return { format, width, height };
}

function readWebp(b: Uint8Array): ImageHeader | null {
  const chunk = ascii(b, 12, 4);
  if (chunk === 'VP8X') return { format: 'webp', width: 1 + (b[24]! | (b[25]! << 8) | (b[26]! << 16)), height: 1 + (b[27]! | (b[28]! << 8) | (b[29]! << 16)) };
  if (chunk === 'VP8 ') return { format: 'webp', width: u16le(b, 26) & 0x3fff, height: u16le(b, 28) & 0x3fff };
  if (chunk === 'VP8L') {
    const bits = u32le(b, 21);
    return { format: 'webp', width: 1 + (bits & 0x3fff), height: 1 + ((bits >> 14) & 0x3fff) };
  }
  return null;
}
