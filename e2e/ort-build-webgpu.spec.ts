import { expect, test } from '@playwright/test';
import { CHROMIUM, CHROMIUM_ARGS, openModel } from './fixtures.ts';
import { count, ortCache, recordRequests } from './ort-files.ts';

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
