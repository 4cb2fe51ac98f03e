import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ycbcrToRgba, type PlaneLayout, type YCbCrFormat } from './jpeg-ycbcr.ts';

/** libjpeg-turbo's raw samples and RGB decode of e2e/files/jpeg/ (written by make-jpegs.c). */
interface Case { file: string; format: YCbCrFormat; width: number; height: number; planes: string; rgb: string }
const cases = JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures/jpeg-ycbcr.json'), 'utf8')) as Case[];

function chromaSize({ format, width, height }: Case): [number, number] {
  return [format === 'I444' ? width : Math.ceil(width / 2), format === 'I420' ? Math.ceil(height / 2) : height];
}

/**
 * The case's packed planes laid out as a VideoFrame may hold them: rows `pad` bytes longer than
 * their samples (filled with junk that must not be read), planes in Y, Cb, Cr order.
 */
function framed(c: Case, pad: number): { data: Uint8Array; layout: PlaneLayout[] } {
  const packed = Buffer.from(c.planes, 'base64');
  const [cw, ch] = chromaSize(c);
  const sizes: [number, number][] = [[c.width, c.height], [cw, ch], [cw, ch]];
  const layout: PlaneLayout[] = [];
  const data = new Uint8Array(sizes.reduce((n, [w, h]) => n + (w + pad) * h, 0)).fill(0xa5);
  let read = 0;
  let offset = 0;
  for (const [w, h] of sizes) {
    layout.push({ offset, stride: w + pad });
    for (let y = 0; y < h; y++, read += w) data.set(packed.subarray(read, read + w), offset + y * (w + pad));
    offset += (w + pad) * h;
  }
  expect(read).toBe(packed.length);
  return { data, layout };
}

function rgbOf(rgba: Uint8ClampedArray): Uint8Array {
  return Uint8Array.from({ length: (rgba.length / 4) * 3 }, (_, i) => rgba[Math.floor(i / 3) * 4 + (i % 3)]!);
}

describe('ycbcrToRgba', () => {
  it('covers every layout it converts, at sizes down to 1×1', () => {
    expect(new Set(cases.map((c) => c.format))).toEqual(new Set(['I444', 'I422', 'I420']));
    expect(cases.length).toBe(24);
  });

  for (const c of cases) {
    it(`${c.file} (${c.format}): libjpeg-turbo's RGB bit for bit, rows padded or not`, () => {
      const expected = new Uint8Array(Buffer.from(c.rgb, 'base64'));
      for (const pad of [0, 13]) {
        const { data, layout } = framed(c, pad);
        const out = new Uint8ClampedArray(c.width * c.height * 4).fill(7);
        ycbcrToRgba(data, layout, c.format, c.width, c.height, out);
        expect(rgbOf(out)).toEqual(expected);
        expect(out.filter((_, i) => i % 4 === 3).every((a) => a === 255)).toBe(true);
      }
    });
  }

  it('writes into a view of a larger array without touching what lies beyond it', () => {
    const c = cases.find((k) => k.file === '420-37x23.jpg')!;
    const { data, layout } = framed(c, 0);
    const whole = new Uint8ClampedArray(c.width * c.height * 4 + 8).fill(9);
    ycbcrToRgba(data, layout, c.format, c.width, c.height, whole.subarray(4, 4 + c.width * c.height * 4));
    expect([...whole.subarray(0, 4), ...whole.subarray(whole.length - 4)]).toEqual([9, 9, 9, 9, 9, 9, 9, 9]);
    expect(rgbOf(whole.subarray(4, whole.length - 4))).toEqual(new Uint8Array(Buffer.from(c.rgb, 'base64')));
  });
});
