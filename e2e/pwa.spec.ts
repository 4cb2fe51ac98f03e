import { chromium, expect, test, type Page } from '@playwright/test';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHROMIUM, CHROMIUM_ARGS, logPage, ROOT } from './fixtures.ts';
import { ortCache } from './ort-files.ts';

// These tests need the service worker (the rest of the suite blocks it for isolation).
test.use({ serviceWorkers: 'allow' });

const upright = readFileSync(join(ROOT, 'models/doc-orientation/samples/upright.png'));
const spam = readFileSync(join(ROOT, 'models/spam-filter/samples/spam.txt'), 'utf8');

async function waitForServiceWorker(page: Page): Promise<void> {
  await page.evaluate(async () => {
    const registration = await navigator.serviceWorker.ready;
    // Precaching happens during install; `ready` resolves once the worker is active.
    if (!registration.active) throw new Error('no active service worker');
  });
}

async function classifyBoth(page: Page): Promise<void> {
  await page.getByTestId('model-select').selectOption('doc-orientation');
  await page.getByTestId('image-file').setInputFiles({ name: 'line.png', mimeType: 'image/png', buffer: upright });
  await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', '0');
  await page.getByTestId('model-select').selectOption('spam-filter');
  await page.getByTestId('text-input').fill(spam);
  await page.getByTestId('classify-text').click();
  await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', 'spam');
}

test('works offline after the first visit: reload and a new page, in the worker, still isolated', async ({ page, context }) => {
  logPage(page);
  await page.goto('/');
  await waitForServiceWorker(page);
  // The first visit installs the built-in models (and shows they work) while online.
  await classifyBoth(page);
  // ORT's build is not precached: the worker keeps the one this device uses (workers/ort-offline.ts).
  await expect.poll(() => ortCache(page)).toHaveLength(2);

  await context.setOffline(true);
  await page.reload();
  await expect(page.getByTestId('online')).toHaveText('Offline');
  expect(await page.evaluate(() => Boolean(navigator.serviceWorker.controller))).toBe(true);
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
  await classifyBoth(page);
  // Actions that need the network say so instead of failing silently.
  await page.getByTestId('tab-models').click();
  await expect(page.getByTestId('offline-note')).toBeVisible();

  const second = await context.newPage();
  logPage(second);
  await second.goto('/');
  expect(await second.evaluate(() => crossOriginIsolated)).toBe(true);
  await expect(second.getByTestId('threads')).toHaveAttribute('data-isolated', 'true');
  await classifyBoth(second);
  await context.setOffline(false);
});

test('the manifest and service worker pass Chromium\'s installability checks', async ({ baseURL }) => {
  // Installability is never granted to incognito profiles, which Playwright contexts are:
  // use a real (temporary) profile.
  const profile = mkdtempSync(join(tmpdir(), 'lantern-profile-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: CHROMIUM_ARGS, serviceWorkers: 'allow' });
  try {
    const page = await context.newPage();
    await page.goto(baseURL!);
    await waitForServiceWorker(page);
    await page.reload();
    const cdp = await context.newCDPSession(page);
    const { installabilityErrors } = (await cdp.send('Page.getInstallabilityErrors')) as { installabilityErrors: { errorId: string }[] };
    expect(installabilityErrors.map((e) => e.errorId)).toEqual([]);
    const manifest = (await cdp.send('Page.getAppManifest')) as { errors: unknown[]; data?: string };
    expect(manifest.errors).toEqual([]);
    const data = JSON.parse(manifest.data ?? '{}') as { display: string; icons: { purpose?: string }[]; start_url: string };
    expect(data.display).toBe('standalone');
    expect(data.icons.some((icon) => icon.purpose === 'maskable')).toBe(true);
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
});

test.describe('a new deployment', () => {
  let server: ChildProcess | undefined;
  let folder = '';
  const PORT = 4187; // not 4190: browsers block that port (ManageSieve)

  test.beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), 'lantern-deploy-'));
    cpSync(join(ROOT, process.env.E2E_DIST ?? 'dist'), folder, { recursive: true });
    server = spawn(process.execPath, [join(ROOT, 'scripts/serve.mjs'), '--dir', folder, '--port', String(PORT)], { stdio: 'ignore' });
  });
  test.afterAll(() => {
    server?.kill();
    rmSync(folder, { recursive: true, force: true });
  });

  test('shows the update prompt and applies it only on accept', async ({ page }) => {
    test.setTimeout(180_000);
    logPage(page);
    const base = `http://127.0.0.1:${PORT}/`;
    await expect.poll(() => fetch(base).then((r) => r.ok, () => false)).toBe(true);
    await page.goto(base);
    await waitForServiceWorker(page);
    await page.reload();
    const oldBuild = await page.getByTestId('build-id').getAttribute('data-build');

    // Deploy a different build into the served folder.
    const next = mkdtempSync(join(tmpdir(), 'lantern-next-'));
    execFileSync(process.execPath, [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--outDir', next, '--emptyOutDir'], {
      cwd: ROOT,
      env: { ...process.env, LANTERN_BUILD_ID: 'next-release' },
      stdio: 'ignore',
    });
    cpSync(next, folder, { recursive: true });
    rmSync(next, { recursive: true, force: true });

    // The app notices when it comes back to the foreground, or on reload; it must not switch by itself.
    await page.reload();
    await expect(page.getByTestId('update-banner')).toBeVisible({ timeout: 60_000 });
    await expect(page.getByTestId('build-id')).toHaveAttribute('data-build', oldBuild ?? '');
    // The new worker is installed and held waiting (registerType 'prompt'), not activated behind the user's back.
    expect(await page.evaluate(async () => {
      const registration = await navigator.serviceWorker.getRegistration();
      return { waiting: Boolean(registration?.waiting), controllerIsActive: navigator.serviceWorker.controller?.scriptURL === registration?.active?.scriptURL };
    })).toEqual({ waiting: true, controllerIsActive: true });
    await expect(page.getByTestId('build-id')).toHaveAttribute('data-build', oldBuild ?? '');

    await page.getByTestId('apply-update').click();
    await expect(page.getByTestId('build-id')).toHaveAttribute('data-build', 'next-release', { timeout: 60_000 });
  });
});
