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
 * The trust model end to end. Scoped keys: the deployment trusts a second publisher, Acme, for
 * the `acme/` namespace only; Acme signs a release of the built-in `spam-filter` (and a catalog
 * listing it), and the app refuses both, naming the key and the model, while the built-in keeps
 * answering. Expiry: a year on, the built-in release and catalog have expired; the model still
 * answers offline-style and the Models screen says what expired. Thresholds: where the trust store
 * asks two keys to sign, one key's bundle is refused and the countersigned one installs.
 */
const ORIGIN = `http://127.0.0.1:${STORE_PORT}`;

let work: string;
let server: ReleaseServer;
let acme: ReturnType<typeof trustEntryFor>;
let bundle: string;

test.beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'lantern-trust-e2e-'));
  const keyPath = join(work, 'acme.json');
  // The key file records no scope, so model:pack signs a release outside the one the trust store
  // gives it (an attacker's tooling would): the device must be what refuses it.
  cli('keygen', '--out', keyPath, '--name', 'Acme');
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

test.beforeEach(({ page }) => logPage(page));

test('a publisher scoped to acme/ cannot ship spam-filter: refused with the reason, the built-in keeps answering', async ({ context, page }) => {
  await useTestRegistry(context, `${ORIGIN}/catalog.json`, acme);
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

test('after its release and catalog expire, an installed model keeps answering and the Models screen says what expired', async ({ page }) => {
  await openModels(page);
  await expect(page.getByTestId('expired-spam-filter')).toHaveCount(0);
  // 400 days later (releases last a year by default, the built-in catalog as long).
  await page.clock.setFixedTime(new Date(Date.now() + 400 * 86_400_000));
  await page.reload();
  await expect(page.getByTestId('expired-spam-filter')).toContainText('This release expired on');
  await expect(page.getByTestId('catalog-error')).toContainText(/catalog expired on .* Installed models keep working/);
  await expect(page.getByTestId('refused')).toHaveCount(0);
  expect(await classifySpam(page)).toEqual({ label: 'spam', version: expect.stringContaining('1.0.0') });
});

test('a stale trust store served after a newer one is refused: a key it still lists stays untrusted, the built-in keeps answering', async ({ context, page }) => {
  // An older trust store (a lower version) that still trusted Acme for spam-filter, served once
  // the device has seen the deployment's current one: by a stale cache, or by an attacker.
  let stale = false;
  await context.route('**/trust-store.json', async (route) => {
    const shipped = await (await route.fetch()).json() as { version: number; keys: unknown[] };
    await route.fulfill({ json: stale ? { version: shipped.version - 1, keys: [...shipped.keys, { ...acme, scope: ['spam-filter'] }] } : shipped });
  });
  await openModels(page);
  stale = true;
  await page.reload();
  await expect(versionRow(page, 'spam-filter@1.0.0')).toHaveAttribute('data-status', 'active');
  // The Models screen says what was refused, once, though checking for updates fetches it again.
  await expect(page.getByTestId('refused')).toHaveAttribute('data-code', 'DOWNGRADE');
  await expect(page.getByTestId('refused')).toContainText('older than one this device already accepted');
  await page.getByTestId('check-updates').click();
  await expect(page.getByTestId('check-updates')).toBeEnabled();
  await expect(page.getByTestId('refused')).toHaveCount(1);
  // Had the stale file been taken, Acme's spam-filter 9.0.0 would install from the bundle.
  await page.getByTestId('bundle-file').setInputFiles(bundle);
  await expect(page.getByTestId('models-error')).toHaveAttribute('data-code', 'SIGNATURE');
  await expect(versionRow(page, 'spam-filter@9.0.0')).toHaveCount(0);
  expect(await classifySpam(page)).toEqual({ label: 'spam', version: expect.stringContaining('1.0.0') });
});

test('where the trust store asks two keys to sign acme/, one key\'s bundle is refused; countersigned, it installs', async ({ context, page }) => {
  const keys = ['Acme release manager', 'Acme reviewer'].map((name, i) => {
    const path = join(work, `acme-${i}.json`);
    cli('keygen', '--out', path, '--name', name, '--scope', 'acme/');
    return { path, entry: trustEntryFor(parseKeyFile(JSON.parse(readFileSync(path, 'utf8'))), ['acme/']) };
  });
  const acmeBundle = join(work, 'acme-spam.lantern');
  cli('pack', variant(work, '1.0.0', { id: 'acme/spam' }), '--key', keys[0]!.path, '--out', join(work, 'acme-pub'), '--bundle', acmeBundle);
  await context.route('**/trust-store.json', async (route) => {
    const shipped = await (await route.fetch()).json() as { version: number; keys: unknown[] };
    await route.fulfill({ json: { version: shipped.version + 1, keys: [...shipped.keys, ...keys.map((k) => k.entry)], thresholds: [{ scope: ['acme/'], signatures: 2 }] } });
  });
  await openModels(page);
  await page.getByTestId('bundle-file').setInputFiles(acmeBundle);
  await expect(page.getByTestId('models-error')).toHaveAttribute('data-code', 'SIGNATURE');
  await expect(page.getByTestId('models-error')).toContainText('acme/spam needs signatures from 2 different trusted keys, and this has 1 (Acme release manager)');
  await expect(versionRow(page, 'acme/spam@1.0.0')).toHaveCount(0);

  cli('sign', acmeBundle, '--key', keys[1]!.path);
  await page.getByTestId('bundle-file').setInputFiles(acmeBundle);
  await expect(versionRow(page, 'acme/spam@1.0.0')).toHaveAttribute('data-status', 'active');
  expect(await classifySpam(page)).toEqual({ label: 'spam', version: expect.stringContaining('1.0.0') });
});
