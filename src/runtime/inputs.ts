import { InputError } from './errors.ts';
import type { ClassifyInput } from './worker-client.ts';

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
  if (isA<Blob>(value, 'Blob')) return { input: { kind: 'image', image: value }, transfer: [] };
  if (isA<ImageBitmap>(value, 'ImageBitmap') || isA<VideoFrame>(value, 'VideoFrame')) {
    // Closed (its size reads 0): postMessage would fail it with an untyped DataCloneError, and
    // every request batched with it.
    if (('displayWidth' in value ? value.displayWidth : value.width) === 0) {
      throw new InputError('The image has no pixels: this ImageBitmap or VideoFrame was closed.', { reason: 'no-pixels' });
    }
    return { input: { kind: 'image', image: value }, transfer: [] };
  }
  if (isA<ImageData>(value, 'ImageData')) {
    // Its buffer went to a worker with an earlier request (ImageData is transferred): posting it
    // again would fail inside postMessage as an untyped DataCloneError.
    if (value.data.byteLength === 0 && value.width * value.height > 0) {
      throw new InputError('This ImageData was already sent to classify, which moves its pixels: pass a copy to classify it again.', { reason: 'no-pixels' });
    }
    // Copy into a buffer of our own only if the view does not cover its whole buffer.
    const data = value.data.byteOffset === 0 && value.data.byteLength === value.data.buffer.byteLength ? value.data : value.data.slice();
    return { input: { kind: 'image', image: { data, width: value.width, height: value.height } }, transfer: [data.buffer as ArrayBuffer] };
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
  if (typeof value === 'object' && value !== null && 'kind' in value) {
    if (value.kind === 'image' && value.image instanceof ArrayBuffer) bytesToSend(value.image);
    return { input: value, transfer: [] };
  }
  throw new InputError('Unsupported input: pass a string, a Blob/File, an ArrayBuffer, an ImageBitmap, ImageData, an <img>, a canvas or a VideoFrame.', { reason: 'unsupported-input' });
}

/**
 * An image's bytes, refused when there are none: an empty buffer, or one an earlier request
 * moved to the worker (detached), which postMessage would fail with an untyped DataCloneError,
 * failing every request batched with it.
 */
function bytesToSend(buffer: ArrayBuffer): ArrayBuffer {
  if (buffer.byteLength > 0) return buffer;
  throw new InputError('The ArrayBuffer has no bytes: it is empty, or an earlier classify moved it to the worker (pass a copy to classify the same bytes again).', { reason: 'empty-file' });
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
