import { chromium, expect, test, type Page } from '@playwright/test';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Backend } from '../src/runtime/index.ts';
import type { OfflineFiles } from '../src/app/offline-files.ts';
import { ORT_FILE } from '../workers/ort-offline.ts';
import { CHROMIUM, CHROMIUM_ARGS, DIST, logPage, meteredConnection, ROOT, seriousViolations, waitForServiceWorker, withLantern } from './fixtures.ts';
import { count, ortCache, recordRequests } from './ort-files.ts';
import { throttledProxy } from '../bench/throttle.ts';

// These tests need the service worker (the rest of the suite blocks it for isolation).
test.use({ serviceWorkers: 'allow' });

const upright = readFileSync(join(ROOT, 'models/doc-orientation/samples/upright.png'));
const spam = readFileSync(join(ROOT, 'models/spam-filter/samples/spam.txt'), 'utf8');

async function classifyBoth(page: Page): Promise<void> {
  await page.getByTestId('model-select').selectOption('doc-orientation');
  await page.getByTestId('image-file').setInputFiles({ name: 'line.png', mimeType: 'image/png', buffer: upright });
  await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', '0');
  await page.getByTestId('model-select').selectOption('spam-filter');
  await page.getByTestId('text-input').fill(spam);
  await page.getByTestId('classify-text').click();
  await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', 'spam');
}

/** The build's list of what a device stores offline (src/app/offline-files.ts). */
const offlineFiles = JSON.parse(readFileSync(join(DIST, 'offline-files.json'), 'utf8')) as OfflineFiles;
const sum = (files: { size: number }[]) => files.reduce((total, f) => total + f.size, 0);
/** Total bytes for a device on `build`, and how the app writes it in English ("15.4 MB"). */
function offlineTotal(build: Backend): { bytes: number; text: string } {
  const bytes = sum(offlineFiles.precache) + sum(offlineFiles.ort[build]) + sum(offlineFiles.models);
  return { bytes, text: `${(bytes / 2 ** 20).toFixed(1)} MB` };
}
const ORT_WASM = /\/assets\/ort-wasm-simd-threaded[^/]*\.wasm$/;
const progressOf = (page: Page) => page.getByTestId('offline-progress').evaluate((el: HTMLProgressElement) => ({ value: el.value, max: el.max }));

test('first visit: the download for offline use shows its size and progress, then "ready"; offline after that it works', async ({ page, context }) => {
  logPage(page);
  // ORT's wasm (most of the bytes) is held until the progress has been seen mid-way.
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let holding = 0;
  await context.route(ORT_WASM, async (route) => {
    holding++;
    await held;
    await route.continue();
  });
  await page.goto('/');
  const status = page.getByTestId('offline-status');
  await expect(status).toHaveAttribute('data-phase', 'downloading');
  const build = await withLantern(page, (lantern) => lantern.plannedBackend());
  const total = offlineTotal(build);
  await expect(status.getByRole('status')).toHaveText(new RegExp(`^Downloading for offline use: [\\d.,]+ \\S+ of ${total.text.replace('.', '\\.')}$`));
  // The worker asked for ORT and waits; the shell and the built-in models arrive meanwhile: some, not all.
  await expect.poll(() => holding).toBeGreaterThan(0);
  await expect.poll(async () => (await progressOf(page)).value).toBeGreaterThan(0);
  const midway = await progressOf(page);
  expect(midway.max).toBe(total.bytes);
  expect(midway.value).toBeLessThanOrEqual(total.bytes - sum(offlineFiles.ort[build]));
  expect(await seriousViolations(page)).toEqual([]);

  release();
  await expect(status).toHaveAttribute('data-phase', 'ready');
  await expect(status.getByRole('status')).toHaveText('Ready to work offline');
  await expect(page.getByTestId('offline-ready')).toHaveText('Works offline');
  // What the worker kept is exactly the build's files the total counted (workers/ort-offline.ts).
  expect(await ortCache(page)).toEqual(offlineFiles.ort[build].map((f) => `/${f.url}`).sort((a, b) => Number(a.endsWith('.wasm')) - Number(b.endsWith('.wasm'))));
  await context.unroute(ORT_WASM);

  // "Ready" is the whole promise: offline straight away, without having classified online first.
  await context.setOffline(true);
  await page.reload();
  await expect(page.getByTestId('online')).toHaveText('Offline');
  // A later visit does not nag: the small indicator only.
  await expect(page.getByTestId('offline-ready')).toBeVisible();
  await expect(page.getByTestId('offline-status')).toHaveCount(0);
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

test('on a slow link, the first visit\'s figure moves while ORT\'s wasm arrives, instead of jumping once it is kept', async ({ page, context }) => {
  logPage(page);
  // The app behind a 2 Mbps link (bench/throttle.ts): its own origin, so a first visit. ORT's
  // wasm then takes ~10 s to arrive, and the figure is read once a second.
  const PROXY_PORT = 4188;
  const link = await throttledProxy({ listen: PROXY_PORT, target: Number(process.env.E2E_PORT ?? 4173), bitsPerSecond: 2_000_000, rttMs: 20 });
  // ORT's wasm waits until everything else is stored, so that every figure above that is its own.
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await context.route(ORT_WASM, async (route) => {
    await held;
    await route.continue();
  });
  try {
    await page.goto(`http://127.0.0.1:${PROXY_PORT}/`);
    const build = await withLantern(page, (lantern) => lantern.plannedBackend());
    const total = offlineTotal(build).bytes;
    const rest = total - sum(offlineFiles.ort[build]);
    const figure = () => progressOf(page).then((p) => p.value, () => -1);
    await expect.poll(figure, { timeout: 60_000 }).toBe(rest);
    release();
    const seen = new Set<number>();
    // Until every byte is counted: "ready" itself waits on Cache Storage, where the worker's write
    // of the 14 MB wasm has held the ORT cache for ~35 s more in some runs on a shared VM.
    await expect.poll(async () => {
      const phase = await page.getByTestId('offline-status').getAttribute('data-phase');
      if (phase !== 'downloading') return phase;
      const value = await figure();
      seen.add(value);
      return value === total ? 'all counted' : phase;
    }, { timeout: 60_000, intervals: [100] }).toMatch(/^(ready|all counted)$/);
    // Before, the figure stayed at `rest` until ORT was kept, then jumped to the total (one
    // reading could fall between, while the glue was kept and the wasm not yet).
    expect([...seen].filter((value) => value > rest && value < total).length).toBeGreaterThanOrEqual(3);
  } finally {
    await context.unroute(ORT_WASM);
    await link.close();
  }
});

test('a first visit cut by a lost connection resumes when it comes back: the shell, the built-in models and ORT, and the model list grows', async ({ page, context }) => {
  logPage(page);
  // Code split off the first screen that the cut kept from loading loads when the link is back
  // (lazy-chunk.ts), never an unhandled error.
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  // One file of each part is held until the connection drops, and fails with it: ORT's wasm (the
  // worker), a built-in model (the store) and a precached file only the service worker asks for.
  const cut = [ORT_WASM, /\/models\/spam-filter\/1\.0\.0\/onnx\//, /\/assets\/hi-[^/]*\.js$/];
  let drop!: () => void;
  const dropped = new Promise<void>((resolve) => (drop = resolve));
  const held = new Set<RegExp>();
  for (const pattern of cut) {
    await context.route(pattern, async (route) => {
      held.add(pattern);
      await dropped;
      await route.abort('internetdisconnected');
    });
  }
  await page.goto('/?model=spam-filter');
  await expect.poll(() => held.size).toBe(cut.length);
  await context.setOffline(true);
  drop();
  // The cut parts failed: the download stops short, and the model cut off is not in the list.
  await expect(page.getByTestId('model-select')).toBeVisible();
  await expect(page.getByTestId('model-select').locator('option[value="spam-filter"]')).toHaveCount(0);
  for (const pattern of cut) await context.unroute(pattern);

  await context.setOffline(false);
  const status = page.getByTestId('offline-status');
  await expect(status).toHaveAttribute('data-phase', 'ready', { timeout: 60_000 });
  await expect(page.getByTestId('model-select').locator('option[value="spam-filter"]')).toHaveCount(1);
  // Offline now, everything is there.
  await context.setOffline(true);
  await page.reload();
  await expect(page.getByTestId('offline-ready')).toBeVisible();
  await classifyBoth(page);
  await context.setOffline(false);
  expect(errors).toEqual([]);
});

test('a first visit whose request for the model list the link dropped, online all along, gets its models without a reload; meanwhile the Classify screen says why it is empty', async ({ page, context }) => {
  logPage(page);
  let asked = 0;
  await context.route(/\/models\/catalog\.sig\.json$/, async (route) => {
    if (asked++ === 0) return route.abort('connectionreset');
    await route.continue();
  });
  await page.goto('/');
  await expect(page.getByTestId('no-models')).toHaveText('No model is on this device yet. The built-in ones download while the device is online; the Models screen lists all.');
  // No 'online' event comes (the connection never went): the download that stalled is resumed by itself.
  await expect(page.getByTestId('model-select').locator('option')).toHaveCount(3, { timeout: 60_000 });
  await expect(page.getByTestId('offline-status')).toHaveAttribute('data-phase', 'ready', { timeout: 60_000 });
  expect(asked).toBeGreaterThanOrEqual(2);
  await page.getByTestId('model-select').selectOption('spam-filter');
  await page.getByTestId('text-input').fill(spam);
  await page.getByTestId('classify-text').click();
  await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', 'spam');
});

test('first visit on a metered connection: the size comes first, ORT downloads only after the yes', async ({ page, context }) => {
  logPage(page);
  await meteredConnection(page);
  const requests = recordRequests(context);
  await page.goto('/');
  const status = page.getByTestId('offline-status');
  await expect(status).toHaveAttribute('data-phase', 'ask');
  const total = offlineTotal(await withLantern(page, (lantern) => lantern.plannedBackend()));
  // The Models screen's words: the size, and why we ask.
  await expect(status).toContainText(`This download is ${total.text}. You are on a metered connection or data saver is on.`);
  await expect(page.getByTestId('offline-download')).toHaveText(`Download ${total.text}`);
  expect(await seriousViolations(page)).toEqual([]);
  // The app shell installs meanwhile; the inference worker, whose start downloads ORT, has not started.
  await waitForServiceWorker(page);
  expect(count(requests, ORT_WASM)).toBe(0);
  await expect(page.getByTestId('device-backend')).toHaveCount(0);

  await page.getByTestId('offline-download').click();
  await expect(status).toHaveAttribute('data-phase', 'ready');
  await expect(status.getByRole('status')).toHaveText('Ready to work offline');
  expect(count(requests, ORT_WASM)).toBeGreaterThan(0);
  await expect(page.getByTestId('device-backend')).toBeVisible();
});

test('a captive portal\'s page in place of ORT is served, never kept: the next answer is ORT again', async ({ page, context }) => {
  logPage(page);
  await page.goto('/');
  await expect(page.getByTestId('offline-status')).toHaveAttribute('data-phase', 'ready');
  const kept = await ortCache(page);
  await page.reload();
  expect(await page.evaluate(() => Boolean(navigator.serviceWorker.controller))).toBe(true);
  // The kept copy is gone (the browser evicted it, or an update changed the build) and the
  // hotel Wi-Fi answers every URL with its sign-in page.
  await page.evaluate(() => caches.delete('lantern-ort'));
  await context.route(ORT_FILE, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<html>Sign in to the hotel Wi-Fi</html>' }));
  const typesThroughServiceWorker = (paths: string[]) => page.evaluate((urls) => Promise.all(urls.map(async (url) => (await fetch(url)).headers.get('Content-Type'))), paths);
  expect(await typesThroughServiceWorker(kept)).toEqual(['text/html', 'text/html']);
  expect(await ortCache(page)).toEqual([]);

  // Signed in: the service worker fetches ORT again instead of serving the portal's page for good.
  await context.unroute(ORT_FILE);
  expect(await typesThroughServiceWorker(kept)).toEqual([expect.stringContaining('javascript'), 'application/wasm']);
  await expect.poll(() => ortCache(page)).toEqual(kept);
  await page.reload();
  await classifyBoth(page);
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

/**
 * The build served by npm start from a folder of its own, on `port`, for a test that deploys
 * another build into it: `deploy` builds one with `env` (what a deployer sets), copies it over
 * the served one and restarts the server, as a deployment does (serve.mjs reads the build's
 * allowed origins when it starts). Registers its own hooks: call it inside a describe.
 */
function deployment(port: number) {
  let server: ChildProcess | undefined;
  let folder = '';
  const start = () => (server = spawn(process.execPath, [join(ROOT, 'scripts/serve.mjs'), '--dir', folder, '--port', String(port)], { stdio: 'ignore' }));
  const base = `http://127.0.0.1:${port}/`;
  const listening = () => expect.poll(() => fetch(base).then((r) => r.ok, () => false)).toBe(true);
  test.beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), 'lantern-deploy-'));
    cpSync(DIST, folder, { recursive: true });
    start();
  });
  test.afterAll(() => {
    server?.kill();
    rmSync(folder, { recursive: true, force: true });
  });
  return {
    /** Opens the app in `page` and waits until it is installed (its service worker active). */
    async install(page: Page): Promise<void> {
      logPage(page);
      await listening();
      await page.goto(base);
      await waitForServiceWorker(page);
    },
    /** The deployment file the served build was made with. */
    registryConfig: () => JSON.parse(readFileSync(join(folder, 'registry-config.json'), 'utf8')) as { allowedOrigins: string[] },
    /** Builds with `env`, checks the build with `check`, then deploys it in place of the served one. */
    async deploy(env: Record<string, string>, check: (next: string, served: string) => void = () => {}): Promise<void> {
      const next = mkdtempSync(join(tmpdir(), 'lantern-next-'));
      execFileSync(process.execPath, [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--outDir', next, '--emptyOutDir'], { cwd: ROOT, env: { ...process.env, ...env }, stdio: 'ignore' });
      check(next, folder);
      server?.kill();
      cpSync(next, folder, { recursive: true });
      rmSync(next, { recursive: true, force: true });
      start();
      await listening();
    },
  };
}

test.describe('a new deployment', () => {
  const served = deployment(4187); // not 4190: browsers block that port (ManageSieve)

  test('shows the update prompt and applies it only on accept', async ({ page }) => {
    test.setTimeout(180_000);
    await served.install(page);
    await page.reload();
    const oldBuild = await page.getByTestId('build-id').getAttribute('data-build');

    // Deploy a different build into the served folder.
    await served.deploy({ LANTERN_BUILD_ID: 'next-release' });

    // The app notices when it comes back to the foreground, or on reload; it must not switch by itself.
    await page.reload();
    await expect(page.getByTestId('update-banner')).toBeVisible({ timeout: 60_000 });
    await expect(page.getByTestId('build-id')).toHaveAttribute('data-build', oldBuild ?? '');
    // The new worker is installed and held waiting (registerType 'prompt'), not activated behind the user's back.
    expect(await page.evaluate(async () => Boolean((await navigator.serviceWorker.getRegistration())?.waiting))).toBe(true);
    await expect(page.getByTestId('build-id')).toHaveAttribute('data-build', oldBuild ?? '');

    await page.getByTestId('apply-update').click();
    await expect(page.getByTestId('build-id')).toHaveAttribute('data-build', 'next-release', { timeout: 60_000 });
  });
});

test.describe('a deployment that allows another model origin', () => {
  const served = deployment(4186);
  const ORIGIN = 'https://models.example.org';

  test('installed apps are offered the new build, whose page alone changed (its headers), and then allow the origin', async ({ page }) => {
    test.setTimeout(240_000);
    await served.install(page);
    /** The CSP connect-src of the page as the service worker serves it: the installed app's. */
    const connectSrc = async () => {
      const response = await page.reload();
      expect(response?.fromServiceWorker()).toBe(true);
      return /connect-src ([^;]*)/.exec(response?.headers()['content-security-policy'] ?? '')?.[1];
    };
    expect(await connectSrc()).not.toContain(ORIGIN);
    const buildId = await page.getByTestId('build-id').getAttribute('data-build');

    // The same code built again, allowing one more origin: no file the service worker keeps changes but the page's revision.
    await served.deploy({ LANTERN_BUILD_ID: buildId ?? '', LANTERN_ALLOWED_ORIGINS: [...served.registryConfig().allowedOrigins, ORIGIN].join(',') }, (next, current) => {
      expect(readdirSync(join(next, 'assets')).sort()).toEqual(readdirSync(join(current, 'assets')).sort());
      expect(readFileSync(join(next, 'index.html'))).toEqual(readFileSync(join(current, 'index.html')));
    });

    // Before: the installed page kept the connect-src it was first served with, whatever the server now sends.
    expect(await connectSrc()).not.toContain(ORIGIN);
    await expect(page.getByTestId('update-banner')).toBeVisible({ timeout: 60_000 });
    // The app reloads itself once the new worker controls it (pwa.ts). A reload of the test's
    // racing it was aborted (net::ERR_ABORTED, 1 run in 3–4): the test's come after the app's.
    const appReloaded = page.waitForEvent('load');
    await page.getByTestId('apply-update').click();
    await appReloaded;
    await expect.poll(connectSrc, { timeout: 60_000 }).toContain(ORIGIN);
  });
});
