import { expect, test, type Page } from '@playwright/test';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { STORE_PORT } from '../playwright.config.ts';
import { releaseServer } from '../scripts/model-serve.ts';
import { parseKeyFile, trustEntryFor } from '../src/runtime/store/trust.ts';
import { installExifTagged, logPage, requireShared, SHARED, withLantern, type ExifTagged } from './fixtures.ts';
import { cli, versionRow } from './release-fixtures.ts';

/**
 * Bring your own model, end to end: ShuffleNet V2 int8 from the ONNX Model Zoo (a model Lantern
 * did not build, in ../shared) is packed by the CLI from the bare .onnx + labels + torchvision
 * flags with an ephemeral key, published by model:serve's server, added in the Models screen by
 * catalog URL (or as a bundle file) and run in the worker through the Classify screen.
 * The app is configured as a deployer would: the test routes registry-config.json (allowed
 * origin) and trust-store.json (the publisher's key); playwright.config.ts allows the origin in CSP.
 */
const ORIGIN = `http://127.0.0.1:${STORE_PORT}`;
const MODEL = 'models/shufflenet-v2-int8';

let work: string | undefined;
let server: Server | undefined;
let trustEntry: ReturnType<typeof trustEntryFor>;
let bundle: string;
/** The same network as a hub folder whose preprocessor takes pixels as they are: the centre 224² of the photo, unscaled. */
let nativeBundle: string;

test.beforeAll(async () => {
  test.setTimeout(120_000);
  requireShared(`${MODEL}/model.onnx`);
  requireShared('images/panda.jpg');
  work = mkdtempSync(join(tmpdir(), 'lantern-byom-e2e-'));
  const key = join(work, 'key.json');
  cli('keygen', '--out', key, '--name', 'BYOM e2e publisher');
  trustEntry = trustEntryFor(parseKeyFile(JSON.parse(readFileSync(key, 'utf8'))), ['shufflenet', 'shufflenet-native']);
  bundle = join(work, 'shufflenet.lantern');
  cli('pack', join(SHARED, MODEL, 'model.onnx'), '--key', key, '--out', join(work, 'pub'), '--bundle', bundle,
    '--labels', join(SHARED, MODEL, 'labels.json'), '--id', 'shufflenet', '--version', '1.0.0', '--title', 'ShuffleNet V2 (ImageNet)',
    '--resize', 'shortest_edge:256', '--crop', '224', '--mean', '0.485,0.456,0.406', '--std', '0.229,0.224,0.225');
  const hub = join(work, 'native');
  mkdirSync(join(hub, 'onnx'), { recursive: true });
  copyFileSync(join(SHARED, MODEL, 'model.onnx'), join(hub, 'onnx/model.onnx'));
  const labels = JSON.parse(readFileSync(join(SHARED, MODEL, 'labels.json'), 'utf8')) as string[];
  writeFileSync(join(hub, 'config.json'), JSON.stringify({ id2label: Object.fromEntries(labels.map((label, i) => [i, label])) }));
  writeFileSync(join(hub, 'preprocessor_config.json'), JSON.stringify({
    do_resize: false, size: { height: 224, width: 224 }, do_center_crop: true, crop_size: { height: 224, width: 224 },
    do_rescale: true, rescale_factor: 1 / 255, do_normalize: true, image_mean: [0.485, 0.456, 0.406], image_std: [0.229, 0.224, 0.225],
  }));
  nativeBundle = join(work, 'native.lantern');
  cli('pack', hub, '--key', key, '--out', join(work, 'pub'), '--bundle', nativeBundle, '--id', 'shufflenet-native', '--version', '1.0.0', '--title', 'ShuffleNet V2, centre crop unscaled');
  server = releaseServer(join(work, 'pub'));
  await new Promise<void>((resolve) => server!.listen(STORE_PORT, '127.0.0.1', resolve));
});

test.afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  if (work) rmSync(work, { recursive: true, force: true });
});

test.beforeEach(async ({ context, page }) => {
  logPage(page);
  await context.route('**/registry-config.json', async (route) => {
    const shipped = await (await route.fetch()).json() as { catalogUrl: string };
    await route.fulfill({ json: { ...shipped, allowedOrigins: [ORIGIN] } });
  });
  await context.route('**/trust-store.json', async (route) => {
    // What a deployer adding a key does: the key, and a higher version (devices refuse a changed file at the same one).
    const shipped = await (await route.fetch()).json() as { version: number; keys: unknown[] };
    await route.fulfill({ json: { version: shipped.version + 1, keys: [...shipped.keys, trustEntry] } });
  });
});

async function openModels(page: Page): Promise<void> {
  await page.goto('/?tab=models');
  await expect(page.getByTestId('add-model')).toBeVisible();
}

async function classifyPhoto(page: Page, name: string): Promise<string | null> {
  const top = page.getByTestId('top-label');
  const previous = (await top.count()) ? await top.getAttribute('data-label') : null;
  await page.getByTestId('image-file').setInputFiles(join(SHARED, 'images', name));
  if (previous) await expect(top).not.toHaveAttribute('data-label', previous);
  await expect(top).toBeVisible();
  return top.getAttribute('data-label');
}

async function expectClassifies(page: Page): Promise<void> {
  await page.getByTestId('tab-classify').click();
  await page.getByTestId('model-select').selectOption('shufflenet');
  expect(await classifyPhoto(page, 'cat.jpg')).toBe('tabby, tabby cat');
  await expect(page.getByTestId('model-version')).toContainText('shufflenet');
  // The label table's entry is the full synonym list "giant panda, panda, panda bear, ...".
  expect(await classifyPhoto(page, 'panda.jpg')).toMatch(/^giant panda,/);
}

test('a packed ONNX Model Zoo classifier is added by catalog URL and classifies photos in the worker', async ({ page }) => {
  await openModels(page);
  // An origin the deployment does not allow is refused before anything is fetched.
  await page.getByTestId('catalog-url').fill('http://127.0.0.1:9/catalog.json');
  await page.getByTestId('add-catalog').click();
  await expect(page.getByTestId('add-model-error').getByTestId('error-text')).toHaveText('http://127.0.0.1:9 is not a model source this deployment allows; the catalog was not fetched.');
  await page.getByTestId('catalog-url').fill('ftp://example.org/catalog.json');
  await page.getByTestId('add-catalog').click();
  await expect(page.getByTestId('add-model-error')).toHaveText('Write the full address, starting with https://');

  await page.getByTestId('catalog-url').fill(`${ORIGIN}/catalog.json`);
  await page.getByTestId('add-catalog').click();
  await page.getByTestId('install-shufflenet').click();
  await expect(versionRow(page, 'shufflenet@1.0.0')).toHaveAttribute('data-status', 'active', { timeout: 60_000 });
  await expectClassifies(page);

  // The catalog was saved for later update checks.
  await page.goto('/?tab=models');
  await expect(page.getByTestId('model-shufflenet')).toBeVisible();
  expect(await page.evaluate(() => localStorage.getItem('lantern.catalogs'))).toContain(`${ORIGIN}/catalog.json`);
});

test('the same release sideloaded as a bundle file classifies photos', async ({ page }) => {
  await openModels(page);
  await page.getByTestId('bundle-file').setInputFiles(bundle);
  await expect(versionRow(page, 'shufflenet@1.0.0')).toHaveAttribute('data-status', 'active', { timeout: 60_000 });
  await expectClassifies(page);
});

test('a hub model that does not resize sees the centre of a large photo at full scale, as transformers.js crops it, EXIF orientation applied', async ({ page }) => {
  await openModels(page);
  await page.getByTestId('bundle-file').setInputFiles(nativeBundle);
  await expect(versionRow(page, 'shufflenet-native@1.0.0')).toHaveAttribute('data-status', 'active', { timeout: 60_000 });
  await installExifTagged(page);
  const out = await withLantern(page, async (lantern, catJpeg) => {
    const tagged = (globalThis as unknown as { exifTagged: ExifTagged }).exifTagged;
    const scores = async (image: Blob | ImageData) => {
      const { predictions, notes } = await lantern.classify('shufflenet-native', { kind: 'image', image });
      return `${predictions.map((p) => `${p.label.split(',')[0]} ${p.score.toFixed(6)}`).join(', ')}${notes.map((n) => ` [${n.kind}]`).join('')}`;
    };
    /** The centre 224² of `blob` as the page's own decode gives it, from `size` pixels when given (else full size). */
    const centre = async (blob: Blob, size?: { resizeWidth: number; resizeHeight: number }) => {
      const bitmap = await createImageBitmap(blob, size ? { ...size, resizeQuality: 'high' } : {});
      const ctx = new OffscreenCanvas(bitmap.width, bitmap.height).getContext('2d', { willReadFrequently: true })!;
      ctx.drawImage(bitmap, 0, 0);
      return ctx.getImageData(Math.floor((bitmap.width - 224) / 2), Math.floor((bitmap.height - 224) / 2), 224, 224);
    };
    // cat.jpg drawn at 4000×3000, a phone's photo: beyond the 2048 px edge and the 4 MP working size.
    const cat = await createImageBitmap(new Blob([Uint8Array.from(atob(catJpeg), (c) => c.charCodeAt(0))]));
    const canvas = new OffscreenCanvas(4000, 3000);
    canvas.getContext('2d')!.drawImage(cat, 0, 0, 4000, 3000);
    const jpeg = await canvas.convertToBlob({ type: 'image/jpeg', quality: 0.9 });
    const png = await (async () => {
      const small = new OffscreenCanvas(2100, 2100);
      small.getContext('2d')!.drawImage(cat, 0, 0, 2100, 2100);
      return small.convertToBlob({ type: 'image/png' });
    })();
    const quarterTurn = tagged(new Uint8Array(await jpeg.arrayBuffer()), 6);
    return {
      jpeg: [await scores(jpeg), await scores(await centre(jpeg))],
      // What a downscaled working copy's centre would have shown it (the 2048 px edge): another view.
      downscaledCopy: await scores(await centre(jpeg, { resizeWidth: 2000, resizeHeight: 1500 })),
      png: [await scores(png), await scores(await centre(png))],
      quarterTurn: [await scores(quarterTurn), await scores(await centre(quarterTurn))],
    };
  }, readFileSync(join(SHARED, 'images/cat.jpg')).toString('base64'));
  expect(out.jpeg[0]).toEqual(out.jpeg[1]);
  expect(out.png[0]).toEqual(out.png[1]);
  expect(out.quarterTurn[0]).toEqual(out.quarterTurn[1]);
  // Nothing was downscaled, and the comparisons are not vacuous: each photo's answer is its own.
  expect(Object.values(out).flat().join()).not.toContain('[downscaled]');
  expect(new Set([out.jpeg[0], out.downscaledCopy, out.png[0], out.quarterTurn[0]]).size).toBe(4);
});
