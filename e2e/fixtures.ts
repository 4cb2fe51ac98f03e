import AxeBuilder from '@axe-core/playwright';
import { deflateSync } from 'node:zlib';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join, resolve } from 'node:path';
import { test, type Page } from '@playwright/test';
import { CHROMIUM, CHROMIUM_ARGS } from '../playwright.config.ts';
import type { Lantern } from '../src/runtime/lantern.ts';

export { CHROMIUM, CHROMIUM_ARGS };

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The build under test: playwright.config.ts serves E2E_DIST, relative to the repository or absolute. */
export const DIST = resolve(ROOT, process.env.E2E_DIST ?? 'dist');
/** The shared folder next to the repo (tests read it; it is never copied into the repo). */
export const SHARED = join(ROOT, '..', 'shared');

/** Skips the current test with a clear message when a ../shared file is absent. */
export function requireShared(relative: string): string {
  const path = join(SHARED, relative);
  test.skip(!existsSync(path), `skipped: ../shared/${relative} is absent on this machine`);
  return path;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(body.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), body])), 0);
  return Buffer.concat([head, body, crc]);
}

/** Encodes an RGB PNG whose pixels come from `pixel(x, y)`; large sizes compress well. */
export function encodePng(width: number, height: number, pixel: (x: number, y: number) => [number, number, number]): Buffer {
  const raw = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    const row = y * (width * 3 + 1);
    for (let x = 0; x < width; x++) {
      const [r, g, b] = pixel(x, y);
      raw[row + 1 + x * 3] = r;
      raw[row + 2 + x * 3] = g;
      raw[row + 3 + x * 3] = b;
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A PNG whose header claims `width`×`height` but whose pixel data is garbage. */
export function corruptPng(width = 64, height = 64): Buffer {
  const good = encodePng(width, height, () => [200, 200, 200]);
  const ihdrEnd = 8 + 25;
  const garbage = Buffer.from(Array.from({ length: 200 }, (_, i) => (i * 37) & 0xff));
  return Buffer.concat([good.subarray(0, ihdrEnd), chunk('IDAT', garbage), chunk('IEND', Buffer.alloc(0))]);
}

/** Logs page errors to the test output, which makes CI failures readable. */
export function logPage(page: Page): void {
  page.on('pageerror', (e) => console.log('[pageerror]', e.message));
}

/**
 * Runs `fn` in the page with the app's runtime (`globalThis.lantern`, set by src/main.tsx), typed
 * as the real Lantern. `fn` must be self-contained (it is sent as source) and `arg` serialisable.
 */
export function withLantern<R, A = undefined>(page: Page, fn: (lantern: Lantern, arg: A) => R | Promise<R>, arg?: A): Promise<R> {
  return page.evaluate(`(${fn.toString()})(globalThis.lantern, ${JSON.stringify(arg ?? null)})`) as Promise<R>;
}

/**
 * `jpeg` with an EXIF APP1 segment whose only entry is Orientation (0x0112) = `orientation`.
 * Self-contained, for the page: `installExifTagged` makes it `globalThis.exifTagged` there.
 */
function exifTagged(jpeg: Uint8Array, orientation: number): Blob {
  const app1 = new Uint8Array([0xff, 0xe1, 0x00, 0x22, 0x45, 0x78, 0x69, 0x66, 0, 0, 0x4d, 0x4d, 0x00, 0x2a, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, orientation, 0, 0, 0, 0, 0, 0]);
  const bytes = new Uint8Array(jpeg.length + app1.length);
  bytes.set(jpeg.subarray(0, 2));
  bytes.set(app1, 2);
  bytes.set(jpeg.subarray(2), 2 + app1.length);
  return new Blob([bytes], { type: 'image/jpeg' });
}
export type ExifTagged = typeof exifTagged;

export async function installExifTagged(page: Page): Promise<void> {
  await page.evaluate(`globalThis.exifTagged = ${exifTagged.toString()}`);
}

/**
 * An image's pixels as the page's own canvas reads them (the browser's decode, EXIF orientation
 * applied), resized by createImageBitmap to `size` when given: what the worker must see too.
 * Self-contained, for the page: `installCanvasPixels` makes it `globalThis.canvasPixels` there.
 */
async function canvasPixels(blob: Blob, size?: { resizeWidth: number; resizeHeight: number }): Promise<ImageData> {
  const bitmap = await createImageBitmap(blob, size ? { ...size, resizeQuality: 'high' } : {});
  const ctx = new OffscreenCanvas(bitmap.width, bitmap.height).getContext('2d', { willReadFrequently: true })!;
  ctx.drawImage(bitmap, 0, 0);
  return ctx.getImageData(0, 0, bitmap.width, bitmap.height);
}
export type CanvasPixels = typeof canvasPixels;

export async function installCanvasPixels(page: Page): Promise<void> {
  await page.evaluate(`globalThis.canvasPixels = ${canvasPixels.toString()}`);
}

/** axe (WCAG 2.1 A/AA) findings of serious or critical impact, one line each. */
export async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(' | ')}`);
}

/** The words inside `selector` that are drawn on more than one line (split, not wrapped between). */
export function splitWords(page: Page, selector: string): Promise<string[]> {
  return page.evaluate((selector) => [...document.querySelectorAll(selector)].flatMap((element) => {
    const words: string[] = [];
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const word of node.textContent!.matchAll(/\S+/g)) {
        const range = document.createRange();
        range.setStart(node, word.index);
        range.setEnd(node, word.index + word[0].length);
        if (range.getClientRects().length > 1) words.push(word[0]);
      }
    }
    return words;
  }), selector);
}

/** How far the page scrolls sideways (0 or less: it does not). */
export const sidewaysOverflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

/**
 * Simulates a metered connection: replaces `navigator.connection` (the Network Information API,
 * which headless Chromium reports as unmetered) before any app code runs.
 */
export async function meteredConnection(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const connection = Object.assign(new EventTarget(), { type: 'cellular', effectiveType: '4g', saveData: false, downlink: 10, rtt: 50 });
    Object.defineProperty(Navigator.prototype, 'connection', { get: () => connection, configurable: true });
  });
}

/** Waits until the page's service worker is active (tests that use one: `serviceWorkers: 'allow'`). */
export async function waitForServiceWorker(page: Page): Promise<void> {
  await page.evaluate(async () => {
    const registration = await navigator.serviceWorker.ready;
    // Precaching happens during install; `ready` resolves once the worker is active.
    if (!registration.active) throw new Error('no active service worker');
  });
}

export async function openModel(page: Page, modelId: string, query = ''): Promise<void> {
  logPage(page);
  await page.goto(`/?model=${modelId}${query}`);
  await page.getByTestId('model-select').waitFor();
}

/** The built-in samples, with the label each must get: all classified in the worker. */
export const SAMPLES = [
  { model: 'spam-filter', sample: 'spam', label: 'spam' },
  { model: 'spam-filter', sample: 'ham', label: 'ham' },
  { model: 'doc-orientation', sample: 'upright', label: '0' },
  { model: 'doc-orientation', sample: 'upside-down', label: '180' },
  { model: 'fashion-mnist', sample: 'ankle-boot', label: 'Ankle boot' },
  { model: 'fashion-mnist', sample: 'trouser', label: 'Trouser' },
  { model: 'fashion-mnist', sample: 'bag', label: 'Bag' },
];
