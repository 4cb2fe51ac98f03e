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
  it('reads GIF and BMP', () => {
    const gif = new Uint8Array([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 0x20, 0x03, 0x58, 0x02]);
    expect(readImageHeader(gif)).toEqual({ format: 'gif', width: 800, height: 600 });
    const bmp = new Uint8Array(26);
    bmp.set([0x42, 0x4d]);
    new DataView(bmp.buffer).setInt32(18, 100, true);
    new DataView(bmp.buffer).setInt32(22, -50, true);
    expect(readImageHeader(bmp)).toEqual({ format: 'bmp', width: 100, height: 50 });
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
});
