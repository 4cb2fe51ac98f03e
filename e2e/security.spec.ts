import { expect, test } from '@playwright/test';
import { contentSecurityPolicy } from '../scripts/headers.mjs';
import { STORE_PORT } from '../playwright.config.ts';
import { openModel } from './fixtures.ts';

/** Hardening of the production build as served: CSP, no inline script, no input in logs or errors. */
const MARKER = 'PRIVATE-INPUT-5f3a9c';

test('the page is served with the strict CSP and contains no inline script', async ({ page, request }) => {
  const response = await request.get('/');
  expect(response.headers()['content-security-policy']).toBe(contentSecurityPolicy({ dev: false, connectSrc: [`http://127.0.0.1:${STORE_PORT}`] }));
  const html = await response.text();
  const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)];
  expect(scripts.length).toBeGreaterThan(0);
  for (const [, attributes, body] of scripts) {
    expect(attributes).toMatch(/\bsrc=/);
    expect(body!.trim()).toBe('');
  }
  expect(html).not.toMatch(/\son[a-z]+\s*=/i);
  // And nothing the app does at run time trips the policy (workers, WASM, charts).
  const violations: string[] = [];
  await page.exposeFunction('reportViolation', (v: string) => violations.push(v));
  await page.addInitScript(() => document.addEventListener('securitypolicyviolation', (e) => (window as unknown as { reportViolation(v: string): void }).reportViolation(`${e.violatedDirective} ${e.blockedURI}`)));
  await openModel(page, 'spam-filter');
  await page.getByTestId('sample-spam').click();
  await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', 'spam');
  expect(violations).toEqual([]);
  // Trusted Types are enforced: a string cannot become markup, and only the app's own
  // default policy exists (src/trusted-types.ts).
  const sink = await page.evaluate(() => {
    try {
      document.createElement('div').innerHTML = '<img src=x>';
      return 'assigned';
    } catch (error) {
      return (error as Error).name;
    }
  });
  expect(sink).toBe('TypeError');
  // The report reaches the test through exposeFunction, after the throw.
  await expect.poll(() => violations).toEqual([expect.stringMatching(/^require-trusted-types-for /)]);
});

test('inputs never reach the console, error messages or the page outside their own field', async ({ page }) => {
  const logs: string[] = [];
  page.on('console', (m) => logs.push(m.text()));
  page.on('pageerror', (e) => logs.push(e.message));
  await openModel(page, 'spam-filter');
  await page.getByTestId('text-input').fill(`${MARKER} win money now ${MARKER}`);
  await page.getByTestId('classify-text').click();
  await expect(page.getByTestId('top-label')).toBeVisible();
  // A hostile "image" whose bytes, name and type carry the marker.
  await page.getByTestId('model-select').selectOption('doc-orientation');
  await page.getByTestId('image-file').setInputFiles({ name: `${MARKER}.png`, mimeType: 'image/png', buffer: Buffer.from(`<html>${MARKER}</html>`) });
  const error = page.getByTestId('error');
  await expect(error).toHaveAttribute('data-code', 'INPUT');
  expect(await error.innerText()).not.toContain(MARKER);
  expect(logs.filter((l) => l.includes(MARKER))).toEqual([]);
});

test('the production bundle carries no test hooks (faults are injected from outside: e2e/worker-faults.ts)', async ({ request }) => {
  // Every script the app ships is in the service worker's precache list (lazy views included).
  const sw = await (await request.get('/sw.js')).text();
  const files = [...new Set(sw.match(/assets\/[\w.-]+\.js/g) ?? [])];
  const workerFile = files.find((f) => /inference\.worker-[\w-]+\.js$/.test(f));
  expect(workerFile, 'the precache lists the inference worker').toBeDefined();
  const worker = await (await request.get(`/${workerFile}`)).text();
  const page = (await Promise.all(files.filter((f) => f !== workerFile).map(async (f) => (await request.get(`/${f}`)).text()))).join('\n');
  expect(worker).toContain('lantern-alive:');
  for (const hook of ['crashForTest', 'loseGpuDevice', 'ForTest']) {
    expect(page, `page bundle contains ${hook}`).not.toContain(hook);
    expect(worker, `worker bundle contains ${hook}`).not.toContain(hook);
  }
  // The old crash hook was a self.close() (ORT's threads do not call it). The worker's one
  // self.close() now ends a worker whose ORT started from a damaged kept copy (workers/sessions.ts).
  expect(worker.split('self.close()').length - 1).toBe(1);
});
