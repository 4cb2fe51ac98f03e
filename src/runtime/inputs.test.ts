import { afterEach, describe, expect, it, vi } from 'vitest';
import { InputError } from './errors.ts';
import { toWireInput } from './inputs.ts';

afterEach(() => vi.unstubAllGlobals());

describe('toWireInput', () => {
  it('sends a string as text and a Blob as an encoded image, copying nothing', async () => {
    expect(await toWireInput('hello')).toEqual({ input: { kind: 'text', text: 'hello' }, transfer: [] });
    const blob = new Blob([new Uint8Array([1, 2, 3])], { type: 'image/png' });
    const wire = await toWireInput(blob);
    expect(wire.input).toEqual({ kind: 'image', image: blob });
    expect(wire.transfer).toEqual([]);
  });

  it('transfers an ArrayBuffer of encoded bytes', async () => {
    const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47]).buffer;
    const wire = await toWireInput(bytes);
    expect(wire.input).toEqual({ kind: 'image', image: bytes });
    expect(wire.transfer).toEqual([bytes]);
  });

  it('transfers ImageData pixels as raw RGBA (a view over part of a buffer is copied first)', async () => {
    class FakeImageData {
      constructor(readonly data: Uint8ClampedArray, readonly width: number, readonly height: number) {}
    }
    vi.stubGlobal('ImageData', FakeImageData);
    const whole = new FakeImageData(new Uint8ClampedArray(2 * 1 * 4).fill(7), 2, 1);
    const wire = await toWireInput(whole as unknown as ImageData);
    expect(wire.input).toEqual({ kind: 'image', image: { data: whole.data, width: 2, height: 1 } });
    expect(wire.transfer).toEqual([whole.data.buffer]);

    const shared = new Uint8ClampedArray(16).fill(9);
    const part = new FakeImageData(shared.subarray(4, 8), 1, 1);
    const partWire = await toWireInput(part as unknown as ImageData);
    const sent = (partWire.input as { image: { data: Uint8ClampedArray } }).image.data;
    expect(sent.buffer).not.toBe(shared.buffer);
    expect(Array.from(sent)).toEqual([9, 9, 9, 9]);
  });

  it('refuses an ImageData whose pixels an earlier request moved to a worker, with InputError (not a DataCloneError)', async () => {
    class FakeImageData {
      constructor(readonly data: Uint8ClampedArray, readonly width: number, readonly height: number) {}
    }
    vi.stubGlobal('ImageData', FakeImageData);
    const image = new FakeImageData(new Uint8ClampedArray(4), 1, 1);
    structuredClone(image.data.buffer, { transfer: [image.data.buffer] });
    await expect(toWireInput(image as unknown as ImageData)).rejects.toThrow(new InputError('An earlier classify moved these pixels to a worker: pass a copy.', { reason: 'no-pixels' }));
  });

  it('refuses an ArrayBuffer an earlier request moved to a worker, or an empty one, plain or in the { kind } form, with InputError (a DataCloneError failed the whole batch)', async () => {
    const moved = new ArrayBuffer(16);
    structuredClone(moved, { transfer: [moved] });
    for (const input of [moved, new ArrayBuffer(0), { kind: 'image' as const, image: moved }]) {
      const error = await toWireInput(input).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InputError);
      expect((error as InputError).details).toEqual({ reason: 'empty-file' });
    }
  });

  it('refuses a closed ImageBitmap or VideoFrame (its size reads 0) with InputError, before postMessage could fail its batch', async () => {
    class FakeBitmap { constructor(readonly width: number, readonly height: number) {} }
    class FakeFrame { constructor(readonly displayWidth: number, readonly displayHeight: number) {} }
    vi.stubGlobal('ImageBitmap', FakeBitmap);
    vi.stubGlobal('VideoFrame', FakeFrame);
    for (const closed of [new FakeBitmap(0, 0), new FakeFrame(0, 0)]) {
      const error = await toWireInput(closed as unknown as ImageBitmap).catch((e: unknown) => e);
      expect((error as InputError).details).toEqual({ reason: 'no-pixels' });
    }
    expect((await toWireInput(new FakeBitmap(2, 2) as unknown as ImageBitmap)).input).toMatchObject({ kind: 'image' });
  });

  it('passes the explicit { kind } form on, moving nothing, and refuses anything else with InputError', async () => {
    expect(await toWireInput({ kind: 'text', text: 'x' })).toEqual({ input: { kind: 'text', text: 'x' }, transfer: [] });
    const bytes = new Uint8Array([1, 2]).buffer;
    expect(await toWireInput({ kind: 'image', image: bytes })).toEqual({ input: { kind: 'image', image: bytes }, transfer: [] });
    await expect(toWireInput(42 as never)).rejects.toBeInstanceOf(InputError);
    await expect(toWireInput({ nope: true } as never)).rejects.toBeInstanceOf(InputError);
  });

  it('rebuilds the explicit form from the fields the worker reads, so nothing on it can fail postMessage for its whole batch', async () => {
    const reason = async (input: unknown) => ((await toWireInput(input as never).catch((e: unknown) => e)) as InputError).details?.reason;
    // A function (or any other uncloneable extra) on the caller's object is not sent.
    const { input } = await toWireInput({ kind: 'text', text: 'x', onDone: () => undefined } as never);
    expect(input).toEqual({ kind: 'text', text: 'x' });
    expect(() => structuredClone(input)).not.toThrow();
    const pixels = { data: new Uint8ClampedArray(4), width: 1, height: 1, label: () => 'cat' };
    expect((await toWireInput({ kind: 'image', image: pixels } as never)).input).toEqual({ kind: 'image', image: { data: pixels.data, width: 1, height: 1 } });
    // Pixels an earlier request moved, a closed bitmap, a moved buffer, and what is no image at all.
    const moved = new Uint8ClampedArray(4);
    structuredClone(moved.buffer, { transfer: [moved.buffer] });
    expect(await reason({ kind: 'image', image: { data: moved, width: 1, height: 1 } })).toBe('no-pixels');
    class FakeBitmap { constructor(readonly width: number, readonly height: number) {} }
    vi.stubGlobal('ImageBitmap', FakeBitmap);
    expect(await reason({ kind: 'image', image: new FakeBitmap(0, 0) })).toBe('no-pixels');
    const buffer = new ArrayBuffer(8);
    structuredClone(buffer, { transfer: [buffer] });
    expect(await reason({ kind: 'image', image: buffer })).toBe('empty-file');
    for (const image of [42, 'cat.jpg', { data: [0, 0, 0, 255], width: 1, height: 1 }, () => undefined, null]) expect(await reason({ kind: 'image', image })).toBe('unsupported-input');
    expect(await reason({ kind: 'audio', audio: new ArrayBuffer(1) })).toBe('unsupported-input');
  });
});
