import { describe, expect, it } from 'vitest';
import { parseRange } from './static-http.mjs';

describe('parseRange (RFC 9110)', () => {
  it.each([
    ['bytes=0-9', 100, { status: 206, start: 0, end: 9 }],
    ['bytes=90-200', 100, { status: 206, start: 90, end: 99 }],
    ['bytes=50-', 100, { status: 206, start: 50, end: 99 }],
    ['bytes=-10', 100, { status: 206, start: 90, end: 99 }],
    ['bytes=-500', 100, { status: 206, start: 0, end: 99 }],
    ['bytes=100-', 100, { status: 416 }],
    ['bytes=100-200', 100, { status: 416 }],
    ['bytes=-0', 100, { status: 416 }],
    ['bytes=0-0', 0, { status: 416 }],
    ['bytes=-5', 0, { status: 416 }],
    // Malformed, reversed, multiple ranges or another unit: ignored, the whole body is sent.
    ['bytes=9-0', 100, { status: 200 }],
    ['bytes=-', 100, { status: 200 }],
    ['bytes=0-1,5-6', 100, { status: 200 }],
    ['items=0-1', 100, { status: 200 }],
    ['bytes=abc', 100, { status: 200 }],
  ] as const)('%s of %i bytes', (header, size, expected) => {
    expect(parseRange(header, size)).toEqual(expected);
  });
});
