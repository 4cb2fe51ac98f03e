import { expect, test } from '@playwright/test';
import { openModel } from './fixtures.ts';
import { count, ortCache, recordRequests } from './ort-files.ts';

/**
 * One ORT build per device, chosen in the worker after the adapter probe: a device without a
 * usable WebGPU adapter never downloads the 27 MB WebGPU build. ORT's helper threads start from
 * ORT's small glue file, not from the inference worker's bundle. The build in use is kept in the
 * cache the service worker serves offline (e2e/pwa.spec.ts reloads offline). The WebGPU build:
 * e2e/ort-build-webgpu.spec.ts.
 */

test.describe('without a WebGPU adapter', () => {
  test('loads only the WASM build, threads from ORT\'s glue, and keeps that build for offline use', async ({ page, context }) => {
    const paths = recordRequests(context);
    await openModel(page, 'spam-filter');
    await page.getByTestId('sample-spam').click();
    await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', 'spam');
    await expect(page.getByTestId('backend')).toHaveAttribute('data-backend', 'wasm');
    await expect(page.getByTestId('threads')).toContainText('2');

    // Fetched by ORT, then copied for offline use from the HTTP cache (a request, not a download).
    expect([...new Set(paths.filter((p) => p.endsWith('.wasm')))]).toEqual([expect.stringMatching(/^\/assets\/ort-wasm-simd-threaded-[^.]+\.wasm$/)]);
    expect(count(paths, /asyncify/)).toBe(0);
    expect(count(paths, /\/assets\/ort\.webgpu/)).toBe(0);
    // The worker bundle is evaluated once: ORT's two helper threads load the glue instead.
    expect(count(paths, /\/assets\/inference\.worker-/)).toBe(1);
    await expect.poll(() => ortCache(page)).toEqual([
      expect.stringMatching(/^\/assets\/ort-wasm-simd-threaded-[^.]+\.mjs$/),
      expect.stringMatching(/^\/assets\/ort-wasm-simd-threaded-[^.]+\.wasm$/),
    ]);

    // The next start hands ORT the kept copy: the wasm is read from the cache, not requested.
    paths.length = 0;
    await page.reload();
    await page.getByTestId('model-select').waitFor();
    await page.getByTestId('sample-spam').click();
    await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', 'spam');
    await expect(page.getByTestId('threads')).toContainText('2');
    expect(count(paths, /\/assets\/inference\.worker-/)).toBe(1);
    expect(count(paths, /\.wasm$/)).toBe(0);
  });
});

test('a damaged kept copy of ORT is replaced on the next start instead of breaking every start', async ({ page, context }) => {
  await openModel(page, 'spam-filter');
  await page.getByTestId('sample-spam').click();
  await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', 'spam');
  await expect.poll(() => ortCache(page)).toHaveLength(2);
  // What a captive portal or an interrupted write leaves: the wasm's URL with other bytes.
  const keptBytes = await page.evaluate(async () => {
    const cache = await caches.open('lantern-ort');
    const request = (await cache.keys()).find((r) => r.url.endsWith('.wasm'))!;
    const whole = await (await cache.match(request))!.arrayBuffer();
    await cache.put(request, new Response(whole.slice(0, 4096), { headers: { 'Content-Type': 'application/wasm' } }));
    return whole.byteLength;
  });

  const paths = recordRequests(context);
  await page.reload();
  await page.getByTestId('model-select').waitFor();
  await page.getByTestId('sample-spam').click();
  await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', 'spam');
  expect(count(paths, /\.wasm$/)).toBeGreaterThan(0);
  // Kept again, whole: the next offline start has a copy that works.
  await expect.poll(() => page.evaluate(async () => {
    const cache = await caches.open('lantern-ort');
    const request = (await cache.keys()).find((r) => r.url.endsWith('.wasm'));
    return request ? (await (await cache.match(request))!.arrayBuffer()).byteLength : 0;
  })).toBe(keptBytes);
});

test('when ORT cannot be downloaded, the error says so, the model is not blamed, and the next request tries again', async ({ page }) => {
  // The first request of a first visit, and ORT's wasm does not arrive (the connection dropped).
  await page.route(/\/assets\/ort-wasm-simd-threaded-[^/]+\.wasm$/, (route) => route.abort('internetdisconnected'));
  await openModel(page, 'spam-filter');
  await page.getByTestId('sample-spam').click();
  const error = page.getByTestId('error');
  await expect(error).toContainText('The inference runtime could not start');
  await expect(error).toHaveAttribute('data-code', 'RUNTIME_UNAVAILABLE');

  // The connection is back: the next request starts ORT afresh and answers.
  await page.unroute(/\/assets\/ort-wasm-simd-threaded-[^/]+\.wasm$/);
  await page.getByTestId('sample-spam').click();
  await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', 'spam');
});

test('when the inference worker\'s own script cannot be fetched, the error says the runtime could not start, and the next request works', async ({ page }) => {
  // A first visit whose connection drops as the worker's script is asked for (offline with no copy kept).
  await page.route(/\/assets\/inference\.worker-[^/]+\.js$/, (route) => route.abort('internetdisconnected'));
  await openModel(page, 'spam-filter');
  await page.getByTestId('sample-spam').click();
  const error = page.getByTestId('error');
  await expect(error).toHaveAttribute('data-code', 'RUNTIME_UNAVAILABLE');
  await expect(error.locator('code')).toHaveText('The inference worker could not start: its script did not load (offline with no copy kept, or blocked).');

  await page.unroute(/\/assets\/inference\.worker-[^/]+\.js$/);
  await page.getByTestId('sample-spam').click();
  await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', 'spam');
});
