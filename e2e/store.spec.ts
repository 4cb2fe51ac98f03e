import { expect, test, type Page } from '@playwright/test';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { STORE_PORT } from '../playwright.config.ts';
import { generateKey, parseKeyFile, sign, trustEntryFor } from '../src/runtime/store/trust.ts';
import { logPage, sidewaysOverflow, splitWords } from './fixtures.ts';
import { classifySpam, cli, openModels, useTestRegistry, variant, versionRow } from './release-fixtures.ts';
import { ReleaseServer } from './release-server.ts';

/**
 * The signed model store end to end. Releases are packed at test time with the CLI and an
 * ephemeral key, and served cross-origin by a release server that misbehaves on request.
 *
 * Test configuration: the app reads its deployment configuration from /registry-config.json
 * and /trust-store.json. Tests intercept those two files (page.route) to point the catalog at
 * the test server and to trust the ephemeral key — no test-only code path exists in the app.
 * playwright.config.ts adds the test server's origin to the CSP connect-src.
 */
const ORIGIN = `http://127.0.0.1:${STORE_PORT}`;
const ONNX = 'spam-filter/1.1.0/onnx/model_quantized.onnx';
const CHUNK = 16384;

let work: string;
let server: ReleaseServer;
let trustEntry: ReturnType<typeof trustEntryFor>;
let bundle: string;

test.beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'lantern-store-e2e-'));
  const keyPath = join(work, 'key.json');
  cli('keygen', '--out', keyPath, '--name', 'e2e publisher');
  trustEntry = trustEntryFor(parseKeyFile(JSON.parse(readFileSync(keyPath, 'utf8'))), ['spam-filter']);
  bundle = join(work, 'spam-1.1.0.lantern');
  const pub = join(work, 'pub');
  cli('pack', variant(work, '1.1.0'), '--key', keyPath, '--out', pub, '--chunk-size', String(CHUNK), '--bundle', bundle);
  // An older release, signed by the same trusted key, for the replay case (not in the catalog).
  cli('pack', variant(work, '0.9.0'), '--key', keyPath, '--out', join(pub, 'old'), '--chunk-size', String(CHUNK));
  // The same manifest, validly signed by a key the app does not trust.
  const manifest = readFileSync(join(pub, 'spam-filter/1.1.0/manifest.json'));
  const stranger = await sign(manifest, await generateKey('stranger'));
  writeFileSync(join(pub, 'untrusted.sig.json'), JSON.stringify({ signatures: [stranger] }));
  server = new ReleaseServer(pub);
  await server.listen(STORE_PORT);
});

test.afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

test.beforeEach(async ({ context, page }) => {
  server.reset();
  logPage(page);
  await useTestRegistry(context, `${ORIGIN}/catalog.json`, trustEntry);
  // Storage faults on demand: a tiny quota, or IndexedDB refusing chunk writes as if full.
  await context.addInitScript(() => {
    const estimate = StorageManager.prototype.estimate;
    StorageManager.prototype.estimate = function patched(this: StorageManager) {
      return globalThis.fakeQuota ? Promise.resolve(globalThis.fakeQuota) : estimate.call(this);
    };
    const put = IDBObjectStore.prototype.put;
    IDBObjectStore.prototype.put = function patched(this: IDBObjectStore, ...args: Parameters<IDBObjectStore['put']>) {
      if (this.name === 'chunks' && globalThis.failChunkPuts !== undefined && globalThis.failChunkPuts-- <= 0) throw new DOMException('Quota exceeded', 'QuotaExceededError');
      return put.apply(this, args);
    };
  });
});

const version = versionRow;

async function expectStillOnBuiltin(page: Page): Promise<void> {
  await expect(version(page, 'spam-filter@1.0.0')).toHaveAttribute('data-status', 'active');
  await expect(page.locator('[data-testid="version-spam-filter@1.1.0"][data-status="active"]')).toHaveCount(0);
  expect(await classifySpam(page)).toEqual({ label: 'spam', version: expect.stringContaining('1.0.0') });
}

/** Chunks in the page's model store (IndexedDB), read beside the app's own connection. */
function storedChunks(page: Page): Promise<number> {
  return page.evaluate(() => new Promise<number>((resolve, reject) => {
    const open = indexedDB.open('lantern-models');
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const count = open.result.transaction('chunks').objectStore('chunks').count();
      count.onsuccess = () => {
        open.result.close();
        resolve(count.result);
      };
      count.onerror = () => reject(count.error);
    };
  }));
}

async function update(page: Page): Promise<void> {
  await page.getByTestId('update-spam-filter').click();
}

test('a valid update downloads with progress, installs and activates', async ({ page }) => {
  server.behaviour = { delayMs: 150 };
  await openModels(page);
  await expect(page.getByTestId('update-spam-filter')).toHaveAttribute('data-version', '1.1.0');
  await update(page);
  await expect(page.getByTestId('progress-spam-filter')).toBeVisible();
  await expect(page.getByTestId('progress-spam-filter')).toContainText(/of .* \(\d+%\) · .*\/s/);
  await expect(version(page, 'spam-filter@1.1.0')).toHaveAttribute('data-status', 'active');
  await expect(version(page, 'spam-filter@1.0.0')).toHaveAttribute('data-status', 'ready');
  await expect(page.getByTestId('storage')).toContainText('Models on disk');
  expect(server.completedRanges().filter((r) => r.startsWith(ONNX))).toHaveLength(Math.ceil(186826 / CHUNK));
  expect(await classifySpam(page)).toEqual({ label: 'spam-v1.1.0', version: expect.stringContaining('1.1.0') });
});

const TAMPERING = [
  { name: 'a flipped bit in a chunk', behaviour: () => ({ flipBit: { path: ONNX, offset: 3 * CHUNK + 100 } }), code: 'INTEGRITY', message: /does not match the hash in the signed manifest/ },
  { name: 'a truncated file', behaviour: () => ({ truncate: ONNX }), code: 'INTEGRITY', message: /not the size the signed manifest says|shorter than the signed manifest/ },
  { name: 'an HTML 200 page instead of the file', behaviour: () => ({ html: ONNX }), code: 'INTEGRITY', message: /web page instead of/ },
  { name: 'a signature by an untrusted key', behaviour: () => ({ replace: new Map([['spam-filter/1.1.0/manifest.sig.json', 'untrusted.sig.json']]) }), code: 'SIGNATURE', message: /not signed by a trusted publisher key/ },
  { name: 'a missing signature', behaviour: () => ({ missing: new Set(['spam-filter/1.1.0/manifest.sig.json']) }), code: 'SIGNATURE', message: /not signed/ },
  {
    name: 'a replayed older manifest',
    behaviour: () => ({ replace: new Map([
      ['spam-filter/1.1.0/manifest.json', 'old/spam-filter/0.9.0/manifest.json'],
      ['spam-filter/1.1.0/manifest.sig.json', 'old/spam-filter/0.9.0/manifest.sig.json'],
    ]) }),
    code: 'DOWNGRADE',
    message: /older than one already installed/,
  },
];

for (const c of TAMPERING) {
  test(`rejects ${c.name} while the active version keeps answering`, async ({ page }) => {
    server.behaviour = c.behaviour();
    await openModels(page);
    await update(page);
    const error = page.getByTestId('models-error');
    await expect(error).toHaveAttribute('data-code', c.code);
    await expect(error).toContainText(c.message);
    await expect(error).toHaveAttribute('role', 'alert');
    await expectStillOnBuiltin(page);
  });
}

test('a download cut at several points resumes and never refetches a verified chunk', async ({ page }) => {
  server.behaviour = { cut: { path: ONNX, offsets: new Set([0, 4 * CHUNK, 9 * CHUNK]) } };
  await openModels(page);
  await update(page);
  await expect(version(page, 'spam-filter@1.1.0')).toHaveAttribute('data-status', 'active', { timeout: 60_000 });
  const cuts = server.log.filter((e) => !e.complete).map((e) => e.start);
  expect(cuts).toEqual([0, 4 * CHUNK, 9 * CHUNK]);
  const done = server.completedRanges();
  expect(new Set(done).size).toBe(done.length);
  expect(done.filter((r) => r.startsWith(ONNX))).toHaveLength(Math.ceil(186826 / CHUNK));
  expect(await classifySpam(page)).toEqual({ label: 'spam-v1.1.0', version: expect.stringContaining('1.1.0') });
});

test('a download interrupted by closing the tab resumes from the last verified chunk', async ({ context, page }) => {
  server.behaviour = { stallAfter: 5 };
  await openModels(page);
  const chunksBefore = await storedChunks(page);
  await update(page);
  await expect.poll(() => server.completedRanges().length).toBe(5);
  // Once the page has stored the fifth chunk (verified chunks go to IndexedDB), close the tab mid-download.
  await expect.poll(() => storedChunks(page)).toBeGreaterThanOrEqual(chunksBefore + 5);
  await page.close();
  const before = server.completedRanges();
  server.behaviour = {};
  const again = await context.newPage();
  await openModels(again);
  await expect(version(again, 'spam-filter@1.1.0')).toHaveAttribute('data-status', 'downloading');
  await again.getByTestId('resume-spam-filter@1.1.0').click();
  await expect(version(again, 'spam-filter@1.1.0')).toHaveAttribute('data-status', 'active');
  const after = server.completedRanges().slice(before.length);
  for (const range of before) expect(after).not.toContain(range);
  expect(await classifySpam(again)).toEqual({ label: 'spam-v1.1.0', version: expect.stringContaining('1.1.0') });
});

test('rollback restores the previous version\'s answers', async ({ page }) => {
  await openModels(page);
  await update(page);
  await expect(version(page, 'spam-filter@1.1.0')).toHaveAttribute('data-status', 'active');
  expect((await classifySpam(page)).label).toBe('spam-v1.1.0');
  await page.getByTestId('tab-models').click();
  await page.getByTestId('rollback-spam-filter@1.0.0').click();
  await expect(version(page, 'spam-filter@1.0.0')).toHaveAttribute('data-status', 'active');
  await expect(version(page, 'spam-filter@1.1.0')).toHaveAttribute('data-status', 'ready');
  expect(await classifySpam(page)).toEqual({ label: 'spam', version: expect.stringContaining('1.0.0') });
});

test('an update and a rollback made in another window of the app are followed here, without a reload', async ({ context, page }) => {
  await openModels(page);
  // This window has answered once: its session of 1.0.0 is loaded.
  expect(await classifySpam(page)).toEqual({ label: 'spam', version: expect.stringContaining('1.0.0') });
  await page.getByTestId('tab-models').click();
  const other = await context.newPage();
  logPage(other);
  await openModels(other);
  await update(other);
  await expect(version(other, 'spam-filter@1.1.0')).toHaveAttribute('data-status', 'active');
  // The Models screen left open here follows, and the next answer comes from the version now active.
  await expect(version(page, 'spam-filter@1.1.0')).toHaveAttribute('data-status', 'active');
  expect(await classifySpam(page)).toEqual({ label: 'spam-v1.1.0', version: expect.stringContaining('1.1.0') });
  await page.getByTestId('tab-models').click();
  await other.getByTestId('rollback-spam-filter@1.0.0').click();
  await expect(version(page, 'spam-filter@1.0.0')).toHaveAttribute('data-status', 'active');
  expect(await classifySpam(page)).toEqual({ label: 'spam', version: expect.stringContaining('1.0.0') });
});

test('on a 320 px phone, two versions keep their words whole and each one\'s buttons sit on a line under it', async ({ page }) => {
  await page.setViewportSize({ width: 320, height: 800 });
  await openModels(page);
  await update(page);
  await expect(version(page, 'spam-filter@1.1.0')).toHaveAttribute('data-status', 'active');
  const older = version(page, 'spam-filter@1.0.0');
  await expect(older.getByTestId('rollback-spam-filter@1.0.0')).toBeVisible();
  expect(await splitWords(page, 'table.versions th, table.versions td')).toEqual([]);
  const number = (await older.locator('td').first().boundingBox())!;
  for (const action of ['rollback', 'share', 'delete']) {
    const button = (await older.getByTestId(`${action}-spam-filter@1.0.0`).boundingBox())!;
    expect(button.y).toBeGreaterThanOrEqual(number.y + number.height);
  }
  expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
});

test('a sideloaded bundle installs with no network at all', async ({ context, page }) => {
  await openModels(page);
  // Start the worker and its WASM while online; after that nothing needs the network.
  expect((await classifySpam(page)).label).toBe('spam');
  await context.setOffline(true);
  await page.getByTestId('tab-models').click();
  await page.getByTestId('bundle-file').setInputFiles(bundle);
  await expect(version(page, 'spam-filter@1.1.0')).toHaveAttribute('data-status', 'active');
  // Only catalog checks (Models screen, start-up updates), all made before going offline.
  expect(server.log.filter((e) => e.path !== 'catalog.json' && e.path !== 'catalog.sig.json')).toEqual([]);
  expect(await classifySpam(page)).toEqual({ label: 'spam-v1.1.0', version: expect.stringContaining('1.1.0') });
});

test('a file that is not a bundle is refused', async ({ page }) => {
  await openModels(page);
  await page.getByTestId('bundle-file').setInputFiles({ name: 'x.lantern', mimeType: 'application/octet-stream', buffer: Buffer.from('<html>not a bundle</html>') });
  await expect(page.getByTestId('models-error')).toContainText('not a Lantern model bundle');
  await expectStillOnBuiltin(page);
});

test('too little quota stops before downloading and leaves every version intact', async ({ page }) => {
  await openModels(page);
  await page.evaluate(() => (globalThis.fakeQuota = { usage: 9_990_000, quota: 10_000_000 }));
  await update(page);
  await expect(page.getByTestId('models-error')).toHaveAttribute('data-code', 'QUOTA');
  await expect(page.getByTestId('models-error')).toContainText('not enough storage space');
  expect(server.completedRanges()).toHaveLength(0);
  await expectStillOnBuiltin(page);
});

test('a QuotaExceededError mid-download stops with a clear error and leaves every version intact', async ({ page }) => {
  await openModels(page);
  await page.evaluate(() => (globalThis.failChunkPuts = 3));
  await update(page);
  await expect(page.getByTestId('models-error')).toHaveAttribute('data-code', 'QUOTA');
  await expect(page.getByTestId('models-error')).toContainText('out of storage space');
  await page.evaluate(() => (globalThis.failChunkPuts = undefined));
  await expectStillOnBuiltin(page);
});
