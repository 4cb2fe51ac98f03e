import { expect, test, type Page } from '@playwright/test';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { STORE_PORT } from '../playwright.config.ts';
import { releaseServer } from '../scripts/model-serve.ts';
import { parseKeyFile, trustEntryFor } from '../src/runtime/store/trust.ts';
import { logPage, requireShared, SHARED } from './fixtures.ts';
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

test.beforeAll(async () => {
  test.setTimeout(120_000);
  requireShared(`${MODEL}/model.onnx`);
  requireShared('images/panda.jpg');
  work = mkdtempSync(join(tmpdir(), 'lantern-byom-e2e-'));
  const key = join(work, 'key.json');
  cli('keygen', '--out', key, '--name', 'BYOM e2e publisher');
  trustEntry = trustEntryFor(parseKeyFile(JSON.parse(readFileSync(key, 'utf8'))), ['shufflenet']);
  bundle = join(work, 'shufflenet.lantern');
  cli('pack', join(SHARED, MODEL, 'model.onnx'), '--key', key, '--out', join(work, 'pub'), '--bundle', bundle,
    '--labels', join(SHARED, MODEL, 'labels.json'), '--id', 'shufflenet', '--version', '1.0.0', '--title', 'ShuffleNet V2 (ImageNet)',
    '--resize', 'shortest_edge:256', '--crop', '224', '--mean', '0.485,0.456,0.406', '--std', '0.229,0.224,0.225');
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
