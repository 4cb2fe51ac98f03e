import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { ROOT } from './fixtures.ts';

/**
 * examples/basic as an outside app would use Lantern: `npm pack` the runtime, install the
 * tarball into a copy of the example, typecheck it against the shipped .d.ts, build it with
 * Vite, and serve it (with the signed models `npm run build` published) to drive it in Chromium.
 */
const PORT = Number(process.env.E2E_PORT ?? 4173) + 3;
const BASE = `http://127.0.0.1:${PORT}/`;
const npm = (args: string[], cwd: string) => execFileSync('npm', args, { cwd, stdio: 'pipe', env: { ...process.env, ONNXRUNTIME_NODE_INSTALL: 'skip' } });

let work: string;
let server: ChildProcess | undefined;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  test.setTimeout(240_000);
  work = await mkdtemp(join(tmpdir(), 'lantern-example-'));
  npm(['pack', '--pack-destination', work], ROOT);
  const app = join(work, 'app');
  await cp(join(ROOT, 'examples/basic'), app, { recursive: true });
  npm(['install', '--prefer-offline', '--no-audit', '--no-fund', join(work, 'lantern-0.1.0.tgz')], app);
  // The shipped declarations must be enough for a strict TypeScript app.
  execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(app, 'tsconfig.json')], { stdio: 'pipe' });
  npm(['run', 'build'], app);
  // The signed store the page reads by default: the releases and trust files of the app's build.
  for (const file of ['models', 'registry-config.json', 'trust-store.json']) await cp(join(ROOT, 'dist', file), join(app, 'dist', file), { recursive: true });
  // dev.html's unsigned folder: the spam filter as the hub lays it out, with no "lantern" block.
  const hub = join(app, 'dist/hub/spam-filter');
  await cp(join(ROOT, 'models/spam-filter'), hub, { recursive: true, filter: (p) => !/\/(recipe|eval|samples)(\/|$)/.test(p) });
  const { lantern: _lantern, ...config } = JSON.parse(await readFile(join(hub, 'config.json'), 'utf8')) as Record<string, unknown>;
  await writeFile(join(hub, 'config.json'), JSON.stringify(config));
  server = spawn(process.execPath, [join(ROOT, 'scripts/serve.mjs'), '--dir', join(app, 'dist'), '--port', String(PORT)], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve) => server!.stdout!.once('data', () => resolve()));
});

test.afterAll(async () => {
  server?.kill();
  if (work) await rm(work, { recursive: true, force: true });
});

test('the packed example bundles one onnxruntime-web', async () => {
  const assets = await readdir(join(work, 'app/dist/assets'));
  // One onnxruntime-web, in its two builds: WASM-only and WebGPU-capable. A device downloads
  // only the one it uses (workers/ort.ts); nothing else brings a wasm of its own.
  const wasm = assets.filter((f) => f.endsWith('.wasm')).map((f) => f.replace(/-.{8}\.wasm$/, '.wasm'));
  expect(wasm.sort()).toEqual(['ort-wasm-simd-threaded.asyncify.wasm', 'ort-wasm-simd-threaded.wasm']);
  expect(assets.filter((f) => /^worker-.*\.js$/.test(f))).toHaveLength(1);
});

test('classifies an image from a URL and a text, showing download progress', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(BASE);
  // Every status the page shows, in order (downloads of these small models are quick).
  await page.evaluate(() => {
    const seen: string[] = [];
    globalThis.statuses = seen;
    const status = document.getElementById('status')!;
    new MutationObserver(() => seen.push(status.textContent ?? '')).observe(status, { childList: true, characterData: true, subtree: true });
  });

  await page.click('#classify-image');
  await expect(page.locator('#status')).toContainText('fashion-mnist 1.0.0 on wasm');
  await expect(page.locator('#predictions li').first()).toContainText('Ankle boot');
  expect(await page.locator('#progress').evaluate((p: HTMLProgressElement) => p.value)).toBe(1);
  const statuses = await page.evaluate(() => globalThis.statuses ?? []);
  expect(statuses.some((s) => s.startsWith('Downloading'))).toBe(true);
  expect(statuses).toContain('Model ready');

  await page.click('#classify-text');
  await expect(page.locator('#status')).toContainText('spam-filter 1.0.0');
  await expect(page.locator('#predictions li').first()).toContainText('spam');
  expect(errors).toEqual([]);
});

test('cancel stops a load in flight, and the next attempt still works', async ({ page }) => {
  await page.goto(BASE);
  // Hold the model's manifest so that the load is still running when Cancel is pressed.
  let held!: () => void;
  const requested = new Promise<void>((resolve) => (held = resolve));
  await page.route('**/models/doc-orientation/**', async (route) => {
    held();
    await new Promise(() => undefined);
    await route.continue();
  });
  await page.selectOption('#image-model', 'doc-orientation');
  await page.click('#classify-image');
  await requested;
  await expect(page.locator('#cancel')).toBeEnabled();
  await page.click('#cancel');
  await expect(page.locator('#status')).toHaveText('Cancelled');
  await expect(page.locator('#cancel')).toBeDisabled();

  await page.unrouteAll({ behavior: 'ignoreErrors' });
  await page.click('#classify-image');
  await expect(page.locator('#status')).toContainText('doc-orientation 1.0.0');
  await expect(page.locator('#predictions li').first()).toContainText('Upright');
});

test('an unsigned transformers.js folder runs only with the opt-in, and its results say so', async ({ page }) => {
  await page.goto(`${BASE}dev.html`);
  await page.click('#classify');
  await expect(page.locator('#status')).toHaveText(/^ham \d+\.\d% \(unsigned, wasm\)$/);
  await page.fill('#text', 'Congratulations! You have WON a free cruise, click here to claim your prize now!!!');
  await page.click('#classify');
  await expect(page.locator('#status')).toHaveText(/^spam \d+\.\d% \(unsigned, wasm\)$/);
  // A folder that is not there is a typed error, not a hang.
  await page.fill('#model', 'no-such-model');
  await page.click('#classify');
  await expect(page.locator('#status')).toHaveText(/^ModelLoadError: The folder of no-such-model has no config.json/);
});


test('the package\'s lantern-model command signs a model for a deployment, with only the package\'s dependencies installed', () => {
  const app = join(work, 'app');
  // As the publisher types it in their app's folder (npx sets INIT_CWD to it; this test's own npm run does not).
  const lanternModel = (...args: string[]) => execFileSync(join(app, 'node_modules/.bin/lantern-model'), args, { cwd: app, encoding: 'utf8', env: { ...process.env, INIT_CWD: app } });
  expect(lanternModel('--version')).toBe('lantern-model 0.1.0\n');
  lanternModel('keygen', '--out', 'keys/acme.json', '--scope', 'acme/');
  const packed = lanternModel('pack', join(ROOT, 'models/fashion-mnist'), '--id', 'acme/fashion', '--version', '1.0.0', '--key', 'keys/acme.json', '--out', 'releases');
  expect(packed).toContain('Packed acme/fashion 1.0.0');
  // The device's own checks, against a trust store holding that key.
  expect(lanternModel('verify', 'releases', '--trust', 'keys/acme.json')).toMatch(/^ {2}accepted {2}acme\/fashion 1\.0\.0: signed by /m);
});
