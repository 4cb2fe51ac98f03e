import { expect, test } from '@playwright/test';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { STORE_PORT } from '../playwright.config.ts';
import { parseKeyFile, trustEntryFor } from '../src/runtime/store/trust.ts';
import { logPage, withLantern } from './fixtures.ts';
import { classifySpam, cli, HAM, openModels, publishBroken, publishFixedLength, SPAM, useTestRegistry, variant, versionRow } from './release-fixtures.ts';
import { ReleaseServer } from './release-server.ts';

/**
 * The validation gate and the automatic rollback, end to end: releases of the spam filter
 * packed at test time with `model:pack --golden`, each in its own catalog, installed through
 * the Models screen, with the golden set run on the candidate in the real inference worker.
 */
const ORIGIN = `http://127.0.0.1:${STORE_PORT}`;
const ONNX = 'slow/spam-filter/1.1.0/onnx/model_quantized.onnx';
let work: string;
let server: ReleaseServer;
let trustEntry: ReturnType<typeof trustEntryFor>;

function pack(catalog: string, source: string, golden?: object): void {
  const args = ['pack', source, '--key', join(work, 'key.json'), '--out', join(work, 'pub', catalog), '--chunk-size', '16384'];
  if (golden) {
    writeFileSync(join(work, `${catalog}.golden.json`), JSON.stringify(golden));
    args.push('--golden', join(work, `${catalog}.golden.json`));
  }
  cli(...args);
}

test.beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'lantern-gate-e2e-'));
  cli('keygen', '--out', join(work, 'key.json'), '--name', 'e2e gate publisher');
  trustEntry = trustEntryFor(parseKeyFile(JSON.parse(readFileSync(join(work, 'key.json'), 'utf8'))), ['spam-filter']);
  const good = variant(work, '1.1.0');
  const correct = [{ text: SPAM, label: 'spam-v1.1.0' }, { text: HAM, label: 'ham-v1.1.0' }];
  pack('pass', good, { threshold: 1, items: correct });
  // Expected labels swapped: 0% accuracy against a 90% threshold.
  pack('fail', good, { threshold: 0.9, items: [{ text: SPAM, label: 'ham-v1.1.0' }, { text: HAM, label: 'spam-v1.1.0' }] });
  pack('slow', good, { threshold: 1, items: Array.from({ length: 250 }, (_, i) => correct[i % 2]) });
  const key = parseKeyFile(JSON.parse(readFileSync(join(work, 'key.json'), 'utf8')));
  // Releases without a golden set: one that loads but fails on every real mail, one that cannot be loaded.
  await publishFixedLength(work, join(work, 'pub', 'fixed-length'), key, '1.2.0');
  await publishBroken(work, join(work, 'pub', 'unloadable'), key, '1.3.0');
  server = new ReleaseServer(join(work, 'pub'));
  await server.listen(STORE_PORT);
});

test.afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

test.beforeEach(({ page }) => {
  server.reset();
  logPage(page);
});

test('a release that passes its golden set is activated', async ({ context, page }) => {
  await useTestRegistry(context, `${ORIGIN}/pass/catalog.json`, trustEntry);
  await openModels(page);
  await page.getByTestId('update-spam-filter').click();
  await expect(versionRow(page, 'spam-filter@1.1.0')).toHaveAttribute('data-status', 'active');
  expect(await classifySpam(page)).toEqual({ label: 'spam-v1.1.0', version: expect.stringContaining('1.1.0') });
});

test('a release below its accuracy threshold is rejected with the reason, and the previous version keeps answering', async ({ context, page }) => {
  await useTestRegistry(context, `${ORIGIN}/fail/catalog.json`, trustEntry);
  await openModels(page);
  await page.getByTestId('update-spam-filter').click();
  const error = page.getByTestId('models-error');
  await expect(error).toHaveAttribute('data-code', 'VALIDATION');
  await expect(error).toContainText('validation accuracy 0.0% is below the release\'s threshold of 90.0%');
  await expect(page.locator('[data-testid="registry-notice"][data-kind="rejected"]')).toContainText('was not activated');
  await expect(versionRow(page, 'spam-filter@1.1.0')).toHaveAttribute('data-status', 'rejected');
  await expect(versionRow(page, 'spam-filter@1.1.0')).toContainText('below the release\'s threshold');
  await expect(versionRow(page, 'spam-filter@1.0.0')).toHaveAttribute('data-status', 'active');
  // In Hindi the reason is Hindi too, with its figures.
  await page.getByTestId('language').selectOption('hi');
  const inHindi = 'जाँच की सटीकता 0.0% है, जो रिलीज़ की सीमा 90.0% से कम है';
  await expect(versionRow(page, 'spam-filter@1.1.0')).toContainText(inHindi);
  await expect(page.locator('[data-testid="registry-notice"][data-kind="rejected"]')).toContainText(inHindi);
  await page.getByTestId('language').selectOption('en');
  expect(await classifySpam(page)).toEqual({ label: 'spam', version: expect.stringContaining('1.0.0') });
  // The refused release is no longer offered, even after a reload (the catalog still lists it):
  // tapping Update again would only download it to refuse it again.
  await openModels(page);
  await expect(versionRow(page, 'spam-filter@1.1.0')).toHaveAttribute('data-status', 'rejected');
  await expect(page.getByTestId('check-updates')).toHaveText('Check for updates');
  await expect(page.getByTestId('update-spam-filter')).toHaveCount(0);
});

test('a reload during validation never leaves a half-installed version active; resume validates again', async ({ context, page }) => {
  await useTestRegistry(context, `${ORIGIN}/slow/catalog.json`, trustEntry);
  // A short idle timeout: the worker is gone, so the gate has to start one (≈1 s) — time to reload.
  await page.goto('/?tab=models&idleMs=1');
  await expect(versionRow(page, 'spam-filter@1.0.0')).toHaveAttribute('data-status', 'active');
  await page.getByTestId('update-spam-filter').click();
  await expect.poll(() => server.completedRanges().filter((r) => r.startsWith(ONNX)).length, { intervals: [20] }).toBe(Math.ceil(186826 / 16384));
  // Downloaded and verified, the gate still running: not active yet.
  await expect(versionRow(page, 'spam-filter@1.1.0')).toHaveAttribute('data-status', 'downloading');
  await page.reload();
  await expect(versionRow(page, 'spam-filter@1.0.0')).toHaveAttribute('data-status', 'active');
  await expect(versionRow(page, 'spam-filter@1.1.0')).toHaveAttribute('data-status', 'downloading');
  expect(await classifySpam(page)).toEqual({ label: 'spam', version: expect.stringContaining('1.0.0') });
  await page.getByTestId('tab-models').click();
  await page.getByTestId('resume-spam-filter@1.1.0').click();
  await expect(versionRow(page, 'spam-filter@1.1.0')).toHaveAttribute('data-status', 'active');
  expect(await classifySpam(page)).toEqual({ label: 'spam-v1.1.0', version: expect.stringContaining('1.1.0') });
});

test('an update whose model cannot be loaded is refused before it replaces the active version', async ({ context, page }) => {
  await useTestRegistry(context, `${ORIGIN}/unloadable/catalog.json`, trustEntry);
  await openModels(page);
  await page.getByTestId('update-spam-filter').click();
  const error = page.getByTestId('models-error');
  await expect(error).toHaveAttribute('data-code', 'VALIDATION');
  await expect(error).toContainText('its model could not be loaded on this device');
  await expect(versionRow(page, 'spam-filter@1.3.0')).toHaveAttribute('data-status', 'rejected');
  await expect(versionRow(page, 'spam-filter@1.0.0')).toHaveAttribute('data-status', 'active');
  expect(await classifySpam(page)).toEqual({ label: 'spam', version: expect.stringContaining('1.0.0') });
});

test('a version that fails in real use is rolled back automatically and the rollback is recorded', async ({ context, page }) => {
  await useTestRegistry(context, `${ORIGIN}/fixed-length/catalog.json`, trustEntry);
  await openModels(page);
  await page.getByTestId('update-spam-filter').click();
  await expect(versionRow(page, 'spam-filter@1.2.0')).toHaveAttribute('data-status', 'active');
  const codes = await withLantern(page, async (lantern, text) => {
    const codes: string[] = [];
    for (let i = 0; i < 5; i++) await lantern.classify('spam-filter', { kind: 'text', text }).catch((e: { code: string }) => codes.push(e.code));
    return codes;
  }, SPAM);
  expect(codes).toEqual(['MODEL_RUN', 'MODEL_RUN', 'MODEL_RUN', 'MODEL_RUN', 'MODEL_RUN']);
  const notice = page.locator('[data-testid="registry-notice"][data-kind="rolled-back"]');
  await expect(notice).toContainText('5 of its last 5 requests failed');
  await expect(versionRow(page, 'spam-filter@1.0.0')).toHaveAttribute('data-status', 'active');
  await expect(versionRow(page, 'spam-filter@1.2.0')).toHaveAttribute('data-status', 'rejected');
  expect(await classifySpam(page)).toEqual({ label: 'spam', version: expect.stringContaining('1.0.0') });
  // On the Classify screen, the Models tab says that news waits there.
  await expect(page.getByTestId('tab-models')).toHaveAccessibleName('Models 1 notice');

  // A window opened afterwards, and this one reloaded, still tell it until the user dismisses it.
  const later = await context.newPage();
  await openModels(later);
  await expect(later.locator('[data-testid="registry-notice"][data-kind="rolled-back"]')).toContainText('5 of its last 5 requests failed');
  await later.close();
  await openModels(page);
  await expect(notice).toContainText('5 of its last 5 requests failed');
  await notice.getByRole('button').click();
  await expect(notice).toHaveCount(0);
  await expect(page.getByTestId('notice-count')).toHaveCount(0);
  await page.reload();
  await expect(versionRow(page, 'spam-filter@1.0.0')).toHaveAttribute('data-status', 'active');
  await expect(page.getByTestId('registry-notice')).toHaveCount(0);
});
