import { expect, test, type BrowserContext } from '@playwright/test';
import { CHROMIUM, CHROMIUM_ARGS, openModel } from './fixtures.ts';

/**
 * One ORT build per device, chosen in the worker after the adapter probe: a device without a
 * usable WebGPU adapter never downloads the 27 MB WebGPU build. ORT's helper threads start from
 * ORT's small glue file, not from the inference worker's bundle. The build in use is kept in the
 * cache the service worker serves offline (e2e/pwa.spec.ts reloads offline).
 */

/** Paths of every request the context makes (page, workers, ORT's threads). */
function recordRequests(context: BrowserContext): string[] {
  const paths: string[] = [];
  context.on('request', (request) => paths.push(new URL(request.url()).pathname));
  return paths;
}

const count = (paths: string[], pattern: RegExp) => paths.filter((p) => pattern.test(p)).length;

async function ortCache(page: import('@playwright/test').Page): Promise<string[]> {
  return page.evaluate(async () => {
    const cache = await caches.open('lantern-ort');
    return (await cache.keys()).map((r) => new URL(r.url).pathname).sort();
  });
}

test.describe('without a WebGPU adapter', () => {
  test('loads only the WASM build, threads from ORT\'s glue, and keeps that build for offline use', async ({ page, context }) => {
    const paths = recordRequests(context);
    await openModel(page, 'spam-filter');
    await page.getByTestId('sample-spam').click();
    await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', 'spam');
    await expect(page.getByTestId('backend')).toHaveAttribute('data-backend', 'wasm');
    await expect(page.getByTestId('threads')).toContainText('2');

    expect(count(paths, /\/assets\/ort-wasm-simd-threaded-[^.]+\.wasm$/)).toBe(1);
    expect(count(paths, /asyncify/)).toBe(0);
    expect(count(paths, /\/assets\/ort\.webgpu/)).toBe(0);
    // The worker bundle is evaluated once: ORT's two helper threads load the glue instead.
    expect(count(paths, /\/assets\/inference\.worker-/)).toBe(1);
    await expect.poll(() => ortCache(page)).toEqual([
      expect.stringMatching(/^\/assets\/ort-wasm-simd-threaded-[^.]+\.mjs$/),
      expect.stringMatching(/^\/assets\/ort-wasm-simd-threaded-[^.]+\.wasm$/),
    ]);
  });
});

test.describe('with a WebGPU adapter', () => {
  // SwiftShader stands in for a hardware adapter; WebGPU must be asked for (auto prefers WASM over software).
  test.use({ launchOptions: { executablePath: CHROMIUM, args: [...CHROMIUM_ARGS, '--enable-unsafe-webgpu'] } });

  test('loads only the WebGPU build and keeps it, dropping the other', async ({ page, context }) => {
    const paths = recordRequests(context);
    await openModel(page, 'spam-filter', '&backend=webgpu');
    await expect(page.getByTestId('device-backend')).toHaveAttribute('data-backend', 'webgpu');
    await expect.poll(() => ortCache(page), { timeout: 60_000 }).toEqual([
      expect.stringMatching(/^\/assets\/ort-wasm-simd-threaded\.asyncify-[^.]+\.mjs$/),
      expect.stringMatching(/^\/assets\/ort-wasm-simd-threaded\.asyncify-[^.]+\.wasm$/),
    ]);
    expect(count(paths, /\/assets\/ort-wasm-simd-threaded-[^.]+\.(wasm|mjs)$/)).toBe(0);
    expect(count(paths, /\/assets\/ort\.wasm\.min/)).toBe(0);
  });
});
