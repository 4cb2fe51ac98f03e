import { expect, test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CHROMIUM, CHROMIUM_ARGS, openModel, ROOT, withLantern } from './fixtures.ts';
import { loseGpuDeviceOnNextRun } from './worker-faults.ts';

// A software WebGPU adapter (SwiftShader) so that ORT's GPU device exists and can be destroyed.
test.use({ launchOptions: { executablePath: CHROMIUM, args: [...CHROMIUM_ARGS, '--enable-unsafe-webgpu'] } });

const spam = readFileSync(join(ROOT, 'models/spam-filter/samples/spam.txt'), 'utf8');

test('WebGPU device lost (device.destroy()): the next request falls back to WASM, is retried there and answers correctly', async ({ page }) => {
  test.setTimeout(240_000);
  await openModel(page, 'spam-filter', '&backend=webgpu&backlogWorkers=0');
  const run = () => withLantern(page, async (lantern, text) => {
    const r = await lantern.classify('spam-filter', { kind: 'text', text });
    return { label: r.predictions[0]!.label, backend: r.backend, fallback: r.fallback ?? null };
  }, spam);
  const before = await run();
  await loseGpuDeviceOnNextRun(page);
  const out = { before, after: await run(), later: await run() };
  expect(out.before).toEqual({ label: 'spam', backend: 'webgpu', fallback: null });
  expect(out.after.label).toBe('spam');
  expect(out.after.backend).toBe('wasm');
  // The runtime reports the kind (the UI words it) and the browser's own words as the detail.
  expect(out.after.fallback).toMatchObject({ kind: 'webgpu-run-failed', detail: expect.stringMatching(/The WebGPU device was lost/) });
  expect(out.later).toMatchObject({ label: 'spam', backend: 'wasm' });
});
