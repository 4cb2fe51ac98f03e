import { InputError } from '../src/runtime/errors.ts';
import { MAX_IMAGE_PIXELS, planResize, rgbaToTensor, workingSize, type ResizePlan } from '../src/runtime/image-preprocess.ts';
import type { PreprocessorConfig } from '../src/runtime/model-config.ts';
import { readImageHeader } from '../src/runtime/image-header.ts';

export type ImageSource = Blob | ImageBitmap | ImageData;

export interface PreparedImage {
  tensor: Float32Array;
  plan: ResizePlan;
  notes: string[];
}

/** Largest encoded file we accept; photos from phones are far below this. */
export const MAX_IMAGE_BYTES = 50 * 1024 * 1024;

/**
 * Decodes and resamples in the worker (createImageBitmap + OffscreenCanvas), so a 8000×8000
 * photo never blocks the page. Dimensions are read from the file header first: a tiny file
 * that claims 50000×50000 pixels is refused before anything is allocated.
 */
async function toBitmap(source: ImageSource, notes: string[]): Promise<ImageBitmap> {
  if (!(source instanceof Blob)) {
    try {
      return await createImageBitmap(source);
    } catch {
      throw new InputError('The image data could not be read.');
    }
  }
  if (source.size === 0) throw new InputError('The file is empty (0 bytes).');
  if (source.size > MAX_IMAGE_BYTES) throw new InputError(`The file is too large (${Math.round(source.size / 1048576)} MB; the limit is 50 MB).`);
  if (source.type && !source.type.startsWith('image/')) {
    throw new InputError(`That file is not an image (its type is ${source.type}).`);
  }
  const head = new Uint8Array(await source.slice(0, 256 * 1024).arrayBuffer());
  const header = readImageHeader(head);
  if (!header) throw new InputError('That file is not an image Lantern can read (PNG, JPEG, GIF, WebP or BMP).');
  if (header.width * header.height > MAX_IMAGE_PIXELS) {
    throw new InputError(`The image is too large to decode (${header.width}×${header.height} pixels; the limit is ${MAX_IMAGE_PIXELS / 1e6} megapixels).`);
  }
  // Decode straight to a bounded working size: the browser can decode JPEGs at reduced scale.
  const working = workingSize(header.width, header.height);
  try {
    if (working.scaled) {
      notes.push(`Downscaled from ${header.width}×${header.height} to ${working.width}×${working.height} before classifying.`);
      return await createImageBitmap(source, { resizeWidth: working.width, resizeHeight: working.height, resizeQuality: 'high' });
    }
    return await createImageBitmap(source);
  } catch {
    throw new InputError('The image could not be decoded: the file is corrupt or truncated.');
  }
}

export async function prepareImage(source: ImageSource, config: PreprocessorConfig): Promise<PreparedImage> {
  const notes: string[] = [];
  const bitmap = await toBitmap(source, notes);
  try {
    if (bitmap.width === 0 || bitmap.height === 0) throw new InputError('The image has no pixels.');
    const plan = planResize(bitmap.width, bitmap.height, config);
    const canvas = new OffscreenCanvas(plan.crop.width, plan.crop.height);
    const ctx = canvas.getContext('2d', { willReadFrequently: true });
    if (!ctx) throw new InputError('This browser cannot process images in a worker (no 2D canvas).');
    // Transparent pixels become black, as PIL's convert('RGB') does.
    ctx.fillStyle = '#000';
    ctx.fillRect(0, 0, plan.crop.width, plan.crop.height);
    const needsResize = plan.resizeWidth !== bitmap.width || plan.resizeHeight !== bitmap.height;
    const resized = needsResize
      ? await createImageBitmap(bitmap, { resizeWidth: plan.resizeWidth, resizeHeight: plan.resizeHeight, resizeQuality: 'high' })
      : bitmap;
    ctx.drawImage(resized, -plan.crop.x, -plan.crop.y);
    if (resized !== bitmap) resized.close();
    const pixels = ctx.getImageData(0, 0, plan.crop.width, plan.crop.height).data;
    const tensor = rgbaToTensor(pixels, plan.crop.width, plan.crop.height, config, plan.outWidth, plan.outHeight);
    return { tensor, plan, notes };
  } finally {
    bitmap.close();
  }
}
