import { InputError } from './errors.ts';
import type { ClassifyInput } from './worker-client.ts';
import type { ImageSource, RgbaPixels } from './protocol.ts';

/**
 * What `classify` accepts: a string is text; everything else is an image. The explicit
 * `{ kind, ... }` form is what crosses to the worker, and is accepted as is.
 */
export type LanternInput =
  | string
  | Blob
  | ArrayBuffer
  | ImageBitmap
  | ImageData
  | HTMLImageElement
  | HTMLCanvasElement
  | OffscreenCanvas
  | VideoFrame
  | ClassifyInput;

/** An input ready to post to the worker: what to send, what to move rather than copy, what to free after. */
export interface WireInput {
  input: ClassifyInput;
  /** Buffers handed over to the worker (zero-copy): gone from the page once sent. */
  transfer: Transferable[];
  /** Called once the request settled, for resources Lantern created itself. */
  release?: () => void;
}

const has = (name: string): boolean => typeof (globalThis as Record<string, unknown>)[name] === 'function';
const isA = <T>(value: unknown, name: string): value is T => has(name) && value instanceof ((globalThis as Record<string, unknown>)[name] as abstract new (...args: never[]) => T);

/**
 * Brings any supported input to a form the worker reads, never re-encoding pixels:
 * - encoded bytes (Blob/File, ArrayBuffer) are decoded in the worker; an ArrayBuffer is transferred;
 * - ImageData's pixels are transferred as raw RGBA;
 * - ImageBitmap and VideoFrame are cloned, which shares their pixels with the worker instead of copying;
 * - an `<img>` or a canvas is snapshotted into an ImageBitmap (decoded pixels, not a PNG/JPEG).
 */
export async function toWireInput(value: LanternInput): Promise<WireInput> {
  if (typeof value === 'string') return { input: { kind: 'text', text: value }, transfer: [] };
  if (value instanceof ArrayBuffer) return { input: { kind: 'image', image: bytesToSend(value) }, transfer: [value] };
  if (isA<ImageData>(value, 'ImageData')) {
    // Copy into a buffer of our own only if the view does not cover its whole buffer.
    const { data } = unmovedPixels(value);
    const own = data.byteOffset === 0 && data.byteLength === data.buffer.byteLength ? data : data.slice();
    return { input: { kind: 'image', image: { data: own, width: value.width, height: value.height } }, transfer: [own.buffer as ArrayBuffer] };
  }
  if (isA<HTMLImageElement>(value, 'HTMLImageElement')) {
    try {
      await value.decode();
    } catch {
      throw new InputError('The image element could not be decoded (not loaded, broken, or cross-origin without CORS).', { reason: 'unreadable-element' });
    }
    return snapshot(value);
  }
  if (isA<HTMLCanvasElement>(value, 'HTMLCanvasElement') || isA<OffscreenCanvas>(value, 'OffscreenCanvas')) return snapshot(value);
  // The explicit form is rebuilt from the fields the worker reads: anything else on the caller's
  // object (a function) would fail postMessage for every request batched with it. Nothing in it
  // is moved: the caller may send it again (resendable).
  if (typeof value === 'object' && value !== null && 'kind' in value) {
    return { input: value.kind === 'text' ? { kind: 'text', text: value.text } : { kind: 'image', image: sendableImage(value.kind === 'image' ? value.image : undefined) }, transfer: [] };
  }
  return { input: { kind: 'image', image: sendableImage(value) }, transfer: [] };
}

/**
 * An image the worker can be sent, checked before it is queued: postMessage would fail a closed
 * ImageBitmap or VideoFrame (its size reads 0), a moved buffer or anything uncloneable with an
 * untyped DataCloneError, and every request batched with it.
 */
function sendableImage(image: unknown): ImageSource {
  if (image instanceof ArrayBuffer) return bytesToSend(image);
  if (isA<Blob>(image, 'Blob')) return image;
  if (isA<ImageBitmap>(image, 'ImageBitmap') || isA<VideoFrame>(image, 'VideoFrame')) {
    if (('displayWidth' in image ? image.displayWidth : image.width) > 0) return image;
    throw new InputError('The image has no pixels: this ImageBitmap or VideoFrame was closed.', { reason: 'no-pixels' });
  }
  if (typeof image === 'object' && image !== null && 'data' in image && image.data instanceof Uint8ClampedArray) {
    const { data, width, height } = unmovedPixels(image as RgbaPixels);
    return { data, width, height };
  }
  throw new InputError('Unsupported input: pass a string, a Blob/File, an ArrayBuffer, an ImageBitmap, ImageData, an <img>, a canvas or a VideoFrame.', { reason: 'unsupported-input' });
}

/** Pixels, refused when an earlier request moved them to a worker (their view reads 0 bytes). */
function unmovedPixels<T extends RgbaPixels>(pixels: T): T {
  if (pixels.data.byteLength > 0 || pixels.width * pixels.height === 0) return pixels;
  throw new InputError('An earlier classify moved these pixels to a worker: pass a copy.', { reason: 'no-pixels' });
}

/**
 * An image's bytes, refused when there are none: an empty buffer, or one an earlier request
 * moved to the worker (detached), which postMessage would fail with an untyped DataCloneError,
 * failing every request batched with it.
 */
function bytesToSend(buffer: ArrayBuffer): ArrayBuffer {
  if (buffer.byteLength > 0) return buffer;
  throw new InputError('The ArrayBuffer is empty, or an earlier classify moved it to a worker: pass a copy.', { reason: 'empty-file' });
}

/**
 * Whether the caller's input can be sent to a worker again after a request: not when its buffers
 * were moved there (ArrayBuffer, ImageData), nor a bitmap or video frame whose lifetime is the
 * caller's (a camera closes each frame once answered).
 */
export function resendable(value: LanternInput): boolean {
  if (typeof value === 'string') return true;
  if (value instanceof ArrayBuffer || isA<ImageData>(value, 'ImageData') || isA<ImageBitmap>(value, 'ImageBitmap') || isA<VideoFrame>(value, 'VideoFrame')) return false;
  if (isA<Blob>(value, 'Blob') || isA<HTMLImageElement>(value, 'HTMLImageElement') || isA<HTMLCanvasElement>(value, 'HTMLCanvasElement') || isA<OffscreenCanvas>(value, 'OffscreenCanvas')) return true;
  // The explicit wire form: text, or encoded bytes that are copied, not moved (see toWireInput).
  return typeof value === 'object' && value !== null && 'kind' in value && (value.kind === 'text' || isA<Blob>(value.image, 'Blob') || value.image instanceof ArrayBuffer);
}

async function snapshot(source: HTMLImageElement | HTMLCanvasElement | OffscreenCanvas): Promise<WireInput> {
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(source);
  } catch {
    throw new InputError('The image could not be read (empty canvas, or a cross-origin image without CORS).', { reason: 'unreadable-element' });
  }
  return { input: { kind: 'image', image: bitmap }, transfer: [], release: () => bitmap.close() };
}
