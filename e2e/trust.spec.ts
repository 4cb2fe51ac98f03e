import { expect, test } from '@playwright/test';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { STORE_PORT } from '../playwright.config.ts';
import { parseKeyFile, trustEntryFor } from '../src/runtime/store/trust.ts';
import { logPage } from './fixtures.ts';
import { classifySpam, cli, openModels, useTestRegistry, variant, versionRow } from './release-fixtures.ts';
import { ReleaseServer } from './release-server.ts';

/**
 * Scoped publisher keys end to end: the deployment trusts a second publisher, Acme, for the
 * `acme/` namespace only. Acme signs a release of the built-in `spam-filter` (and a catalog
 * listing it). The app refuses both, names the key and the model, and the built-in keeps answering.
 */
const ORIGIN = `http://127.0.0.1:${STORE_PORT}`;

let work: string;
let server: ReleaseServer;
let acme: ReturnType<typeof trustEntryFor>;
let bundle: string;

test.beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'lantern-trust-e2e-'));
  const keyPath = join(work, 'acme.json');
  cli('keygen', '--out', keyPath, '--name', 'Acme', '--scope', 'acme/');
  acme = trustEntryFor(parseKeyFile(JSON.parse(readFileSync(keyPath, 'utf8'))), ['acme/']);
  bundle = join(work, 'takeover.lantern');
  cli('pack', variant(work, '9.0.0'), '--key', keyPath, '--out', join(work, 'pub'), '--chunk-size', '16384', '--bundle', bundle);
  server = new ReleaseServer(join(work, 'pub'));
  await server.listen(STORE_PORT);
});

test.afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

test.beforeEach(async ({ context, page }) => {
  server.reset();
  logPage(page);
  await useTestRegistry(context, `${ORIGIN}/catalog.json`, acme);
});

test('a publisher scoped to acme/ cannot ship spam-filter: refused with the reason, the built-in keeps answering', async ({ page }) => {
  await openModels(page);
  // Its catalog lists spam-filter: refused as a whole, and the screen says which key and which model.
  await expect(page.getByTestId('catalog-error')).toContainText(`Key ${acme.keyId} (Acme) is not trusted to sign spam-filter`);
  await expect(page.getByTestId('update-spam-filter')).toHaveCount(0);
  expect(server.completedRanges()).toHaveLength(0);

  // The same release sideloaded as a bundle: refused before anything is stored.
  await page.getByTestId('bundle-file').setInputFiles(bundle);
  await expect(page.getByTestId('models-error')).toHaveAttribute('data-code', 'SIGNATURE');
  await expect(page.getByTestId('models-error')).toContainText(`Key ${acme.keyId} (Acme) is not trusted to sign spam-filter`);
  await expect(versionRow(page, 'spam-filter@9.0.0')).toHaveCount(0);
  await expect(versionRow(page, 'spam-filter@1.0.0')).toHaveAttribute('data-status', 'active');
  expect(await classifySpam(page)).toEqual({ label: 'spam', version: expect.stringContaining('1.0.0') });
});
