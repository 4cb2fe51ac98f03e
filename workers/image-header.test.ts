import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TINY_AVIF } from './image-decode.ts';
import { readImageHeader } from './image-header.ts';

const CAT = fileURLToPath(new URL('../../shared/images/cat.jpg', import.meta.url));

function png(width: number, height: number): Uint8Array {
  const b = new Uint8Array(33);
  b.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
  new DataView(b.buffer).setUint32(16, width);
  new DataView(b.buffer).setUint32(20, height);
  return b;
}

/** A JPEG header: SOI, an APP1 Exif block with an orientation tag, then SOF0. */
function jpeg(width: number, height: number, orientation?: number): Uint8Array {
  const parts: number[] = [0xff, 0xd8];
  if (orientation !== undefined) {
    const tiff = [0x4d, 0x4d, 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, orientation, 0, 0, 0, 0, 0, 0];
    const body = [0x45, 0x78, 0x69, 0x66, 0, 0, ...tiff];
    parts.push(0xff, 0xe1, (body.length + 2) >> 8, (body.length + 2) & 0xff, ...body);
  }
  parts.push(0xff, 0xc0, 0, 17, 8, height >> 8, height & 0xff, width >> 8, width & 0xff, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1);
  return new Uint8Array(parts);
}

describe('readImageHeader', () => {
  it('reads PNG sizes, including bomb-sized claims', () => {
    expect(readImageHeader(png(640, 480))).toEqual({ format: 'png', width: 640, height: 480 });
    expect(readImageHeader(png(50000, 50000))).toMatchObject({ width: 50000, height: 50000 });
  });
  it('reads JPEG sizes and swaps them for EXIF rotations', () => {
    expect(readImageHeader(jpeg(4000, 3000))).toEqual({ format: 'jpeg', width: 4000, height: 3000 });
    expect(readImageHeader(jpeg(4000, 3000, 1))).toMatchObject({ width: 4000, height: 3000 });
    expect(readImageHeader(jpeg(4000, 3000, 6))).toEqual({ format: 'jpeg', width: 3000, height: 4000, exifOrientation: 6 });
    expect(readImageHeader(jpeg(4000, 3000, 3))).toEqual({ format: 'jpeg', width: 4000, height: 3000, exifOrientation: 3 });
    expect(readImageHeader(jpeg(4000, 3000, 1))).not.toHaveProperty('exifOrientation');
  });
  /** A GIF with a 2-colour global table, a graphic control extension and one frame at `frame` [left, top, width, height]. */
  const gif = (screen: [number, number], frame: [number, number, number, number]) => {
    const le = (n: number) => [n & 0xff, n >> 8];
    return new Uint8Array([
      ...new TextEncoder().encode('GIF89a'), ...le(screen[0]), ...le(screen[1]), 0x80, 0, 0, 0, 0, 0, 255, 255, 255,
      0x21, 0xf9, 4, 0, 0, 0, 0, 0,
      0x2c, ...frame.flatMap(le), 0, 2, 1, 0x44, 0, 0x3b,
    ]);
  };

  it('reads GIF and BMP', () => {
    expect(readImageHeader(gif([800, 600], [0, 0, 800, 600]))).toEqual({ format: 'gif', width: 800, height: 600 });
    const bmp = new Uint8Array(26);
    bmp.set([0x42, 0x4d]);
    new DataView(bmp.buffer).setInt32(14, 40, true);
    new DataView(bmp.buffer).setInt32(18, 100, true);
    new DataView(bmp.buffer).setInt32(22, -50, true);
    expect(readImageHeader(bmp)).toEqual({ format: 'bmp', width: 100, height: 50 });
    // An OS/2 header keeps 16-bit sizes.
    const core = new Uint8Array(26);
    core.set([0x42, 0x4d]);
    new DataView(core.buffer).setInt32(14, 12, true);
    new DataView(core.buffer).setUint16(18, 300, true);
    new DataView(core.buffer).setUint16(20, 200, true);
    expect(readImageHeader(core)).toEqual({ format: 'bmp', width: 300, height: 200 });
  });

  it('measures a GIF as the browser grows it, to its first frame\'s bounds, and gives no size without a frame', () => {
    // A 40-byte bomb: a 1×1 screen whose first frame is 20,000² (the browser allocates the frame).
    expect(readImageHeader(gif([1, 1], [0, 0, 20_000, 20_000]))).toEqual({ format: 'gif', width: 20_000, height: 20_000 });
    expect(readImageHeader(gif([100, 100], [90, 50, 30, 20]))).toEqual({ format: 'gif', width: 120, height: 100 });
    expect(readImageHeader(gif([800, 600], [0, 0, 800, 600]).subarray(0, 30))).toBeNull();
  });

  it('measures a file that matches two signatures as the browser decodes it: a BMP whose bytes 4–7 read ftyp is a BMP', () => {
    const polyglot = new Uint8Array(64);
    polyglot.set(new TextEncoder().encode('BM'));
    polyglot.set(new TextEncoder().encode('ftypavif'), 4);
    const view = new DataView(polyglot.buffer);
    view.setInt32(14, 40, true);
    view.setInt32(18, 20_000, true);
    view.setInt32(22, 20_000, true);
    polyglot.set([...new TextEncoder().encode('ispe'), 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1], 40);
    expect(readImageHeader(polyglot)).toEqual({ format: 'bmp', width: 20_000, height: 20_000 });
  });
  it('returns null for text, empty and truncated files', () => {
    expect(readImageHeader(new TextEncoder().encode('<html>not an image</html>'))).toBeNull();
    expect(readImageHeader(new Uint8Array())).toBeNull();
    expect(readImageHeader(new Uint8Array([0xff, 0xd8, 0xff]))).toBeNull();
  });
  // A real photo when ../shared has one: reported as skipped (not passed) when it is absent.
  it.skipIf(!existsSync(CAT))('reads a real JPEG from ../shared', async () => {
    const header = readImageHeader(new Uint8Array(await readFile(CAT)));
    expect(header?.format).toBe('jpeg');
    expect(header!.width).toBeGreaterThan(0);
    expect(header!.height).toBeGreaterThan(0);
  });
});

describe('AVIF and HEIC (HEIF container)', () => {
  /** An `ftyp` box with the given brands, then an `ispe` box per size (as in a real meta box). */
  function heif(brands: string[], sizes: [number, number][]): Uint8Array {
    const ftyp = Buffer.alloc(8 + 4 * (brands.length + 1));
    ftyp.writeUInt32BE(ftyp.length, 0);
    ftyp.write('ftyp', 4, 'latin1');
    ftyp.write(brands[0]!, 8, 'latin1');
    brands.slice(1).forEach((brand, i) => ftyp.write(brand, 16 + 4 * i, 'latin1'));
    const ispes = sizes.map(([w, h]) => {
      const box = Buffer.alloc(20);
      box.writeUInt32BE(20, 0);
      box.write('ispe', 4, 'latin1');
      box.writeUInt32BE(w, 12);
      box.writeUInt32BE(h, 16);
      return box;
    });
    return new Uint8Array(Buffer.concat([ftyp, Buffer.from('meta-padding'), ...ispes]));
  }

  it('reads an AVIF file made by an encoder (sharp/libaom, 1×1)', () => {
    const avif = Uint8Array.from(atob(TINY_AVIF), (c) => c.charCodeAt(0));
    expect(readImageHeader(avif)).toEqual({ format: 'avif', width: 1, height: 1 });
  });

  it('takes the largest image size, so a small first tile cannot hide a bomb', () => {
    expect(readImageHeader(heif(['avif', 'mif1'], [[256, 256], [60000, 60000]]))).toEqual({ format: 'avif', width: 60000, height: 60000 });
  });

  it('recognises HEIC (to refuse it by name), and AVIF among compatible brands', () => {
    expect(readImageHeader(heif(['heic', 'mif1'], [[4032, 3024]]))?.format).toBe('heic');
    expect(readImageHeader(heif(['mif1', 'avif'], [[10, 10]]))?.format).toBe('avif');
    expect(readImageHeader(heif(['isom', 'mp42'], [[10, 10]]))).toBeNull();
  });

  it('gives no size for an AVIF whose ispe is not in the bytes read (not 0×0, which every limit lets through)', () => {
    expect(readImageHeader(heif(['avif', 'mif1'], []))).toBeNull();
    expect(readImageHeader(heif(['avif', 'mif1'], [[0, 0]]))).toBeNull();
  });
});
