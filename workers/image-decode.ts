import { InputError, unreadableFile } from '../src/runtime/errors.ts';
import type { Note } from '../src/runtime/notes.ts';
import { readImageHeader, type ImageHeader } from './image-header.ts';
import { assertFitsUnresized, channelCount, jpegDecodeEighths, MAX_IMAGE_PIXELS, nativeRegion, pixelsToTensor, planResize, workingSize, type ResizePlan } from './image-preprocess.ts';
import { ArrayPool } from './buffers.ts';
import type { Pixels } from './image-resize.ts';
import { isYCbCrFormat, ycbcrToRgba } from './jpeg-ycbcr.ts';
import type { PreprocessorConfig } from '../src/runtime/model-config.ts';
import type { ImageSource } from '../src/runtime/protocol.ts';

export interface PreparedImage {
  tensor: Float32Array;
  plan: ResizePlan;
  notes: Note[];
}

/** A 1×1 AVIF (279 bytes, sharp/libaom): whether this browser decodes AVIF at all (asked only after a decode failed). */
export const TINY_AVIF = 'AAAAHGZ0eXBhdmlmAAAAAG1pZjFhdmlmbWlhZgAAANZtZXRhAAAAAAAAACFoZGxyAAAAAAAAAABwaWN0AAAAAAAAAAAAAAAAAAAAACJpbG9jAAAAAERAAAEAAQAAAAAA+gABAAAAAAAAAB0AAAAjaWluZgAAAAAAAQAAABVpbmZlAgAAAAABAABhdjAxAAAAAA5waXRtAAAAAAABAAAAVmlwcnAAAAA4aXBjbwAAAAxhdjFDgSACAAAAABRpc3BlAAAAAAAAAAEAAAABAAAAEHBpeGkAAAAAAwgICAAAABZpcG1hAAAAAAAAAAEAAQOBAgMAAAAlbWRhdBIACgc4AAaQENBpMhAZQmMEwAA0AACQQM6Xt10S';
async function canDecodeAvif(): Promise<boolean> {
  try {
    const bytes = Uint8Array.from(atob(TINY_AVIF), (c) => c.charCodeAt(0));
    (await createImageBitmap(new Blob([bytes], { type: 'image/avif' }))).close();
    return true;
  } catch {
    return false;
  }
}

/** Largest encoded file we accept; photos from phones are far below this. */
const MAX_IMAGE_BYTES = 50 * 1024 * 1024;

/** One canvas for every image this worker reads: camera frames and photo batches share a size. */
let canvas: OffscreenCanvas | undefined;
let context: OffscreenCanvasRenderingContext2D | null = null;

/**
 * Copied-out bitmap pixels, reused image to image (see buffers.ts) and given back once read.
 * Two spares: a worker has two batches in flight, so two images' pixels can be out at once. A
 * working-size photo's pixels are up to 16 MB, so this keeps at most 32 MB.
 */
const copiedPixels = new ArrayPool(Uint8ClampedArray, 2);
/** A JPEG decoder's YCbCr planes, held only while they are turned into pixels. */
const jpegPlanes = new ArrayPool(Uint8Array, 1);

/** The RGBA pixels of a bitmap or a video frame. */
async function readPixels(image: ImageBitmap | VideoFrame, width: number, height: number): Promise<Pixels> {
  if (width === 0 || height === 0) throw new InputError('The image has no pixels (a closed ImageBitmap or VideoFrame?).', { reason: 'no-pixels' });
  return (await copyOpaque(image, width, height)) ?? canvasPixels(image, width, height);
}

/** The 8-bit RGB frame formats, without alpha and with it, that copyTo turns into RGBA. */
const OPAQUE_FORMATS: ReadonlySet<VideoPixelFormat | null> = new Set(['RGBX', 'BGRX']);
const ALPHA_FORMATS: ReadonlySet<VideoPixelFormat | null> = new Set(['RGBA', 'BGRA']);

/**
 * An upright image with no transparency (most photos, JPEG, WebP or PNG, camera bitmaps, a JPEG
 * decoder's frame) copied straight out of a VideoFrame (a bitmap is wrapped in one): the same
 * bytes as the canvas gives, in ~0.2 ms instead of ~0.6 ms for a model-sized image and ~30 ms
 * less for a 2048 px one (Chromium 156). Undefined for what the canvas must do: an image with
 * any transparent pixel (a bitmap stores it premultiplied; only the canvas turns it back the
 * way the browser's own image path, and so transformers.js, does), an EXIF-oriented one, one
 * whose colours the canvas converts (isSrgb), or a browser without VideoFrame or copyTo's format
 * conversion.
 */
async function copyOpaque(image: ImageBitmap | VideoFrame, width: number, height: number): Promise<Pixels | undefined> {
  if (typeof VideoFrame !== 'function') return undefined;
  const frame = image instanceof VideoFrame ? image : new VideoFrame(image, { timestamp: 0 });
  try {
    const rgb = OPAQUE_FORMATS.has(frame.format) || ALPHA_FORMATS.has(frame.format);
    if (!rgb || !isUpright(frame, width, height) || !isSrgb(frame)) return undefined;
    const data = copiedPixels.take(width * height * 4);
    const copied = await frame.copyTo(data, { format: 'RGBA' }).then(() => true, () => false);
    // Chromium marks the bitmap of a PNG stored with an alpha channel, and any resized bitmap, as
    // having alpha even where every pixel is opaque: those are opaque when no copied pixel says otherwise.
    if (copied && (OPAQUE_FORMATS.has(frame.format) || isOpaque(data))) return { data, width, height };
    copiedPixels.give([data]);
    return undefined;
  } finally {
    if (frame !== image) frame.close();
  }
}

/**
 * Whether the frame's stored pixels are the image as displayed, at `width` × `height`. A frame of
 * an EXIF-rotated JPEG keeps its pixels unrotated and says how to turn them (`rotation`, `flip`);
 * a browser too old to say so gets the canvas, which applies the orientation itself.
 */
function isUpright(frame: VideoFrame & { rotation?: number; flip?: boolean }, width: number, height: number): boolean {
  return frame.rotation === 0 && frame.flip === false && frame.codedWidth === width && frame.codedHeight === height;
}

/**
 * Whether the frame's colours are sRGB (no ICC profile, or an sRGB one): the canvas's own colour
 * space, so the canvas converts nothing and the stored values are what it reads. A Display P3
 * photo's are not (the canvas turns them into sRGB, up to a level per channel apart).
 */
function isSrgb(frame: VideoFrame): boolean {
  return frame.colorSpace.primaries === 'bt709' && frame.colorSpace.transfer === 'iec61966-2-1';
}

function isOpaque(rgba: Uint8ClampedArray): boolean {
  for (let i = 3; i < rgba.length; i += 4) if (rgba[i] !== 255) return false;
  return true;
}

function canvasPixels(image: ImageBitmap | VideoFrame, width: number, height: number): Pixels {
  if (!canvas) {
    canvas = new OffscreenCanvas(width, height);
    context = canvas.getContext('2d', { willReadFrequently: true });
  }
  const ctx = context;
  if (!ctx) throw new InputError('This browser cannot read images in a worker (no 2D canvas).', { reason: 'no-canvas' });
  if (canvas.width !== width || canvas.height !== height) {
    canvas.width = width;
    canvas.height = height;
  } else {
    // Same size: nothing resets the canvas, and a transparent image must not show the last one.
    ctx.clearRect(0, 0, width, height);
  }
  ctx.drawImage(image, 0, 0, width, height);
  return { data: ctx.getImageData(0, 0, width, height).data, width, height };
}

/** Enough of any file for the header parsers (a JPEG's EXIF block can put its size far in). */
const HEADER_BYTES = 256 * 1024;

/**
 * The file's bytes, up to `limit`; bytes already here need no read. A Blob is read synchronously
 * where the worker can. Measured in a worker, Chromium 156, on a 23 KB JPEG: an async read of a
 * slice ~2.3 ms, a FileReaderSync read of the slice ~1.5 ms, of the whole file ~0.9 ms. So a
 * file within the limit is read whole.
 */
async function fileBytes(source: Blob | ArrayBuffer, limit = Infinity): Promise<Uint8Array> {
  if (source instanceof ArrayBuffer) return new Uint8Array(source, 0, Math.min(source.byteLength, limit));
  const part = source.size <= limit ? source : source.slice(0, limit);
  try {
    return new Uint8Array(typeof FileReaderSync === 'function' ? new FileReaderSync().readAsArrayBuffer(part) : await part.arrayBuffer());
  } catch (error) {
    throw unreadableFile(error);
  }
}

/**
 * A JPEG decoded at `eighths`/8 of its size by the JPEG decoder itself (WebCodecs' ImageDecoder
 * given a desired size). Measured on a 4000×3000 photo, Chromium 156, 2-core VM (medians of 5):
 * 30 ms to 1000×750, against ~240 ms for createImageBitmap to decode every pixel and resize to
 * the 2048 px working size, and in the worker ~55 ms more to read that bitmap's pixels.
 * Undefined where ImageDecoder is missing or fails, or the frame is not the size asked for: the
 * caller decodes as before, which also says why a broken file fails.
 */
async function decodeJpegScaled(bytes: Uint8Array, header: ImageHeader, eighths: number): Promise<VideoFrame | undefined> {
  const scaled = (side: number) => Math.ceil((side * eighths) / 8);
  // Chromium's JPEG decoder takes the largest eighth whose pixel count fits the desired size's,
  // so the header's displayed (EXIF-turned) orientation asks for the same as the stored one.
  const image = await decodeJpegFrame({ data: bytes, type: 'image/jpeg', desiredWidth: scaled(header.width), desiredHeight: scaled(header.height) });
  if (!image || (Math.abs(image.displayWidth - scaled(header.width)) <= 1 && Math.abs(image.displayHeight - scaled(header.height)) <= 1)) return image;
  image.close();
  return undefined;
}

/** The first frame WebCodecs' ImageDecoder makes of `init`; undefined where it is missing or fails. */
async function decodeJpegFrame(init: ImageDecoderInit): Promise<VideoFrame | undefined> {
  if (typeof ImageDecoder !== 'function') return undefined;
  let decoder: ImageDecoder | undefined;
  try {
    decoder = new ImageDecoder(init);
    return (await decoder.decode()).image;
  } catch {
    return undefined;
  } finally {
    decoder?.close();
  }
}

/**
 * A JPEG within the working size decoded by WebCodecs' ImageDecoder from the bytes already read,
 * giving the same pixels as createImageBitmap (the browser's own decode, as transformers.js reads
 * it) in less time. Measured in the benchmark's worker, Chromium 156 (medians of 10 alternated
 * blocks of 40 requests, ShuffleNet), preprocessing took 7.7 against 11.5 ms for a 640×480
 * photo and 51 against 56 ms for a 1600×1200 one; for a 224² one, no difference (4.20 against
 * 4.21 ms, 15 blocks). The decoder hands over its YCbCr planes, which ycbcrToRgba converts
 * exactly as the browser's decode does (its own conversion, VideoFrame.copyTo as RGBA, differs by
 * up to 21 levels); a layout Chromium decodes to RGB itself (grayscale, 4:4:0, 4:1:1) is copied
 * as it comes. Undefined, for createImageBitmap to decode, where that does not hold: no
 * ImageDecoder, a failed decode, an EXIF-turned image, or colours other than JPEG's full-range
 * YCbCr of sRGB (a Display P3 photo's are the canvas's to convert).
 */
async function decodeJpegWhole(bytes: Uint8Array): Promise<Pixels | undefined> {
  const frame = await decodeJpegFrame({ data: bytes, type: 'image/jpeg' });
  if (!frame) return undefined;
  try {
    const { displayWidth: width, displayHeight: height, format } = frame;
    if (!isYCbCrFormat(format)) return await copyOpaque(frame, width, height);
    // JFIF's YCbCr (BT.601 coefficients, full range) of sRGB colours is what ycbcrToRgba converts.
    const jfif = frame.colorSpace.matrix === 'smpte170m' && frame.colorSpace.fullRange === true;
    if (!isUpright(frame, width, height) || !isSrgb(frame) || !jfif) return undefined;
    const planes = jpegPlanes.take(frame.allocationSize());
    try {
      const layout = await frame.copyTo(planes);
      const data = copiedPixels.take(width * height * 4);
      ycbcrToRgba(planes, layout, format, width, height, data);
      return { data, width, height };
    } finally {
      jpegPlanes.give([planes]);
    }
  } finally {
    frame.close();
  }
}

/**
 * The browser's own decode of the file (createImageBitmap, EXIF orientation applied), `how` being
 * its options or source rectangle; a failure says why in the user's terms.
 */
async function decodeBitmap(source: Blob, format: ImageHeader['format'], how?: ImageBitmapOptions | [x: number, y: number, width: number, height: number]): Promise<ImageBitmap> {
  try {
    return Array.isArray(how) ? await createImageBitmap(source, ...how) : await createImageBitmap(source, how);
  } catch {
    // Browsers that predate AVIF (Chrome < 85, Safari < 16, Edge < 121) fail here on a sound file.
    if (format === 'avif' && !(await canDecodeAvif())) throw new InputError('This browser cannot decode AVIF images.', { reason: 'undecodable', format: 'AVIF' });
    throw new InputError('The image could not be decoded: the file is corrupt or truncated.', { reason: 'corrupt' });
  }
}

/** A decoded image's pixels, the image closed once read. */
async function closingPixels(image: ImageBitmap | VideoFrame, width: number, height: number): Promise<Pixels> {
  try {
    return await readPixels(image, width, height);
  } finally {
    image.close();
  }
}

/**
 * Decodes in the worker, so a 8000×8000 photo never blocks the page. Dimensions are read from
 * the file header first: a tiny file that claims 50000×50000 pixels is refused before anything
 * is allocated. A JPEG longer than 2048 px is decoded by its own decoder at a reduced scale
 * (twice what the model keeps). Any other image within the working size is decoded whole by
 * createImageBitmap (the browser's own image path, as transformers.js reads it), and a larger
 * one by createImageBitmap's resize to the working size, or, for a model that takes pixels as
 * they are, as only the region it keeps, at full scale. EXIF orientation is applied.
 */
async function decode(input: ImageSource, config: PreprocessorConfig, notes: Note[]): Promise<Pixels> {
  // A bitmap or frame is freed by the engine once its batch is done (inference-engine.ts).
  if (input instanceof ImageBitmap) return readPixels(input, input.width, input.height);
  if ('displayWidth' in input) return readPixels(input, input.displayWidth, input.displayHeight);
  if (!(input instanceof Blob) && !(input instanceof ArrayBuffer)) {
    if (!(input.data instanceof Uint8ClampedArray) || input.data.length !== input.width * input.height * 4) throw new InputError('The pixel data does not match the image size (RGBA expected).', { reason: 'bad-pixels' });
    return input;
  }
  const source = input instanceof Blob ? input : new Blob([input]);

  if (source.size === 0) throw new InputError('The file is empty (0 bytes).', { reason: 'empty-file' });
  const mb = Math.round(source.size / 1048576);
  if (source.size > MAX_IMAGE_BYTES) throw new InputError(`The file is too large (${mb} MB; the limit is 50 MB).`, { reason: 'file-too-large', mb, limitMb: MAX_IMAGE_BYTES / 1048576 });
  if (source.type && !source.type.startsWith('image/')) throw new InputError(`That file is not an image (its type is ${source.type}).`, { reason: 'not-an-image', type: source.type });
  const head = await fileBytes(input, HEADER_BYTES);
  const header = readImageHeader(head);
  if (!header) throw new InputError('That file is not an image Lantern can read (PNG, JPEG, GIF, WebP, BMP or AVIF).', { reason: 'unknown-format' });
  if (header.format === 'heic') throw new InputError('HEIC/HEIF photos cannot be decoded here; export as JPEG.', { reason: 'heic' });
  if (header.width * header.height > MAX_IMAGE_PIXELS) {
    const { width, height } = header;
    throw new InputError(`The image is too large to decode (${width}×${height} pixels; the limit is ${MAX_IMAGE_PIXELS / 1e6} megapixels).`, { reason: 'too-many-pixels', width, height, limitMp: MAX_IMAGE_PIXELS / 1e6 });
  }
  assertFitsUnresized(header.width, header.height, config);
  const region = nativeRegion(header.width, header.height, config);
  if (region) {
    // The source rectangle is in the image as displayed: createImageBitmap turns it by its EXIF orientation first.
    const { x, y, width, height } = region;
    return closingPixels(await decodeBitmap(source, header.format, [x, y, width, height]), width, height);
  }
  const wholeFile = async () => (head.byteLength === source.size ? head : fileBytes(input));
  const eighths = header.format === 'jpeg' ? jpegDecodeEighths(header.width, header.height, config) : undefined;
  const frame = eighths && (await decodeJpegScaled(await wholeFile(), header, eighths));
  if (frame) {
    const { displayWidth: width, displayHeight: height } = frame;
    notes.push({ kind: 'downscaled', width: header.width, height: header.height, toWidth: width, toHeight: height });
    return closingPixels(frame, width, height);
  }
  const working = workingSize(header.width, header.height);
  // An EXIF-turned JPEG is left to createImageBitmap, which turns it.
  if (header.format === 'jpeg' && !eighths && !working.scaled && !header.exifOrientation) {
    const pixels = await decodeJpegWhole(await wholeFile());
    if (pixels) return pixels;
  }
  const bitmap = await decodeBitmap(source, header.format, working.scaled ? { resizeWidth: working.width, resizeHeight: working.height, resizeQuality: 'high' } : undefined);
  if (working.scaled) notes.push({ kind: 'downscaled', width: header.width, height: header.height, toWidth: working.width, toHeight: working.height });
  return closingPixels(bitmap, bitmap.width, bitmap.height);
}

/** `tensors`: where the tensor's array comes from (the caller gives it back after the run). */
export async function prepareImage(source: ImageSource, config: PreprocessorConfig, tensors?: ArrayPool<Float32Array>): Promise<PreparedImage> {
  const notes: Note[] = [];
  const pixels = await decode(source, config, notes);
  try {
    if (pixels.width === 0 || pixels.height === 0) throw new InputError('The image has no pixels.', { reason: 'no-pixels' });
    // Again for what had no header: a bitmap, a camera frame, raw pixels.
    assertFitsUnresized(pixels.width, pixels.height, config);
    const plan = planResize(pixels.width, pixels.height, config);
    const into = tensors?.take(channelCount(config) * plan.outWidth * plan.outHeight);
    return { tensor: pixelsToTensor(pixels, plan, config, into), plan, notes };
  } finally {
    copiedPixels.give([pixels.data]);
  }
}
