import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ScratchBuffer } from './buffers.ts';
import { resizeRgba } from './image-resize.ts';
import { resizeBilinear } from '../models/_tools/preprocess.mjs';

function random(width: number, height: number, seed = 1): Uint8Array {
  let s = seed;
  return Uint8Array.from({ length: width * height * 4 }, () => ((s = (s * 1103515245 + 12345) & 0x7fffffff) >> 16) & 0xff);
}

describe('resizeRgba', () => {
  it('is the identity at the same size', () => {
    const data = random(5, 3);
    expect(resizeRgba({ data, width: 5, height: 3 }, 5, 3, 'bilinear').data).toBe(data);
  });

  it('matches the recipes\' OpenCV-style bilinear exactly when antialias is off', () => {
    const data = random(97, 44);
    const ours = resizeRgba({ data, width: 97, height: 44 }, 106, 48, 'linear');
    const ref = resizeBilinear({ width: 97, height: 44, channels: 4, data: Float32Array.from(data) }, 106, 48);
    let maxDiff = 0;
    for (let i = 0; i < ref.data.length; i++) maxDiff = Math.max(maxDiff, Math.abs(ours.data[i]! - ref.data[i]!));
    expect(maxDiff).toBeLessThan(1e-3);
  });

  it('averages every source pixel when shrinking with antialias (no aliasing)', () => {
    // A 1-pixel checkerboard shrunk 8× must become flat grey; plain bilinear keeps stripes.
    const w = 64;
    const data = new Uint8Array(w * w * 4).map((_, i) => {
      const p = i >> 2;
      return ((p % w) + Math.floor(p / w)) % 2 ? 255 : 0;
    });
    const smooth = resizeRgba({ data, width: w, height: w }, 8, 8, 'bilinear');
    for (let i = 0; i < smooth.data.length; i++) expect(Math.abs(smooth.data[i]! - 127.5)).toBeLessThan(8);
  });

  it('keeps a constant image constant, both ways', () => {
    const data = new Uint8Array(40 * 30 * 4).fill(77);
    for (const resampling of ['bilinear', 'linear', 'bicubic'] as const) {
      const out = resizeRgba({ data, width: 40, height: 30 }, 13, 50, resampling);
      for (const v of Array.from(out.data)) expect(v).toBeCloseTo(77, 3);
    }
  });

  it('gives the same pixels when reusing work buffers, whatever an earlier image left in them', () => {
    const into = new ScratchBuffer();
    const big = random(300, 200, 3);
    const small = random(70, 50, 5);
    for (const resampling of ['bilinear', 'linear', 'bicubic'] as const) {
      const fresh = resizeRgba({ data: small, width: 70, height: 50 }, 64, 80, resampling, { x: 4, y: 10, width: 56, height: 60 });
      resizeRgba({ data: big, width: 300, height: 200 }, 256, 180, resampling, undefined, into);
      const reused = resizeRgba({ data: small, width: 70, height: 50 }, 64, 80, resampling, { x: 4, y: 10, width: 56, height: 60 }, into);
      expect(Array.from(reused.data)).toEqual(Array.from(fresh.data));
    }
    // The result lives in the caller's buffer: the next call overwrites it.
    const first = resizeRgba({ data: small, width: 70, height: 50 }, 35, 25, 'bilinear', undefined, into);
    const second = resizeRgba({ data: big, width: 300, height: 200 }, 30, 20, 'bilinear', undefined, into);
    expect((first.data as Float32Array).buffer).toBe((second.data as Float32Array).buffer);
  });

  it('computes a region exactly as cropping the whole resize would', () => {
    const data = random(120, 90, 7);
    for (const resampling of ['bilinear', 'linear', 'bicubic'] as const) {
      const full = resizeRgba({ data, width: 120, height: 90 }, 101, 76, resampling);
      const region = { x: 13, y: 9, width: 64, height: 50 };
      const part = resizeRgba({ data, width: 120, height: 90 }, 101, 76, resampling, region);
      expect([part.width, part.height]).toEqual([64, 50]);
      for (let y = 0; y < 50; y++) {
        for (let x = 0; x < 64; x++) {
          for (let c = 0; c < 4; c++) {
            expect(part.data[(y * 64 + x) * 4 + c]).toBeCloseTo(full.data[((y + 9) * 101 + x + 13) * 4 + c]!, 4);
          }
        }
      }
    }
  });

  it('matches Pillow\'s BICUBIC byte for byte (fixture from workers/fixtures/pil-bicubic.py)', () => {
    const fixture = JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures/pil-bicubic.json'), 'utf8')) as {
      source: { width: number; height: number };
      cases: { width: number; height: number; rgb: number[] }[];
    };
    const { width, height } = fixture.source;
    const data = new Uint8Array(width * height * 4);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        for (let c = 0; c < 3; c++) data[(y * width + x) * 4 + c] = (x * 37 + y * 91 + c * 53 + ((x * y) % 7) * 29) % 256;
        data[(y * width + x) * 4 + 3] = 255;
      }
    }
    for (const expected of fixture.cases) {
      const out = resizeRgba({ data, width, height }, expected.width, expected.height, 'bicubic');
      const rgb = Array.from({ length: expected.width * expected.height * 3 }, (_, i) => out.data[Math.floor(i / 3) * 4 + (i % 3)]);
      expect(rgb).toEqual(expected.rgb);
    }
  });
});
