import { existsSync } from 'node:fs';
import { defineConfig } from '@playwright/test';

/**
 * End-to-end tests run against the production build (`npm run build` first), served with the
 * production headers by scripts/serve.mjs, in a system Chromium when there is one (Debian's
 * `/usr/bin/chromium`, or `CHROMIUM_PATH`), else in Playwright's own Chromium
 * (`npx playwright install chromium`: macOS, Windows, snap-only Ubuntu).
 */
const SYSTEM_CHROMIUM = '/usr/bin/chromium';
/** `undefined` lets Playwright launch the browser it installed itself. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? (existsSync(SYSTEM_CHROMIUM) ? SYSTEM_CHROMIUM : undefined);
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  '--enable-blink-features=ForceEagerMeasureMemory',
];
const PORT = Number(process.env.E2E_PORT ?? 4173);
/** The misbehaving release server of e2e/store.spec.ts; the app's CSP must let the page reach it. */
export const STORE_PORT = Number(process.env.E2E_STORE_PORT ?? PORT + 1);
/** Parallel developers on one machine each build to and serve their own folder. */
const DIST = process.env.E2E_DIST ?? 'dist';

export default defineConfig({
  testDir: 'e2e',
  testMatch: /.*\.spec\.ts/,
  timeout: 120_000,
  expect: { timeout: 30_000 },
  fullyParallel: false,
  workers: 1,
  // One retry on CI, and e2e/flaky-reporter.ts names every test that needed it.
  retries: process.env.CI ? 1 : 0,
  reporter: [['list'], ['./e2e/flaky-reporter.ts']],
  use: {
    baseURL: `http://127.0.0.1:${PORT}/`,
    browserName: 'chromium',
    launchOptions: { executablePath: CHROMIUM, args: CHROMIUM_ARGS },
    serviceWorkers: 'block',
    trace: 'off',
  },
  webServer: {
    command: `node scripts/serve.mjs --dir ${DIST} --port ${PORT} --connect-src http://127.0.0.1:${STORE_PORT}`,
    url: `http://127.0.0.1:${PORT}/`,
    reuseExistingServer: !process.env.CI,
    timeout: 30_000,
  },
});
