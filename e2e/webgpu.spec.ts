import { expect, test } from '@playwright/test';
import { CHROMIUM, CHROMIUM_ARGS, openModel, SAMPLES, withLantern } from './fixtures.ts';

// A software WebGPU adapter (SwiftShader): correct but slow, so it tests the WebGPU code path.
test.use({ launchOptions: { executablePath: CHROMIUM, args: [...CHROMIUM_ARGS, '--enable-unsafe-webgpu'] } });

test('auto prefers WASM over the software adapter and says why', async ({ page }) => {
  await openModel(page, 'spam-filter');
  await page.getByTestId('sample-spam').click();
  await expect(page.getByTestId('backend')).toHaveAttribute('data-backend', 'wasm');
  await expect(page.getByTestId('backend-reason')).toContainText('software WebGPU adapter');
});

test('the same labels come back from WebGPU', async ({ page }) => {
  // SwiftShader runs ORT's WebGPU kernels on the CPU: minutes, not seconds.
  test.setTimeout(600_000);
  for (const s of SAMPLES) {
    await openModel(page, s.model, '&backend=webgpu');
    await page.getByTestId(`sample-${s.sample}`).click();
    await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', s.label, { timeout: 180_000 });
    await expect(page.getByTestId('backend')).toHaveAttribute('data-backend', 'webgpu');
  }
});

// The WebGPU build is asyncify-compiled: two models' ORT calls overlapping used to hang the
// worker for good (workers/sessions.ts, gpuLane). Each model alone always answered.
test('two models at once on WebGPU both answer', async ({ page }) => {
  test.setTimeout(300_000);
  await openModel(page, 'doc-orientation', '&backend=webgpu');
  const answers = await withLantern(page, async (lantern) => {
    const [text, image] = await Promise.all([lantern.classify('spam-filter', 'WIN MONEY NOW!!! Click here to claim your prize'), lantern.classify('doc-orientation', new ImageData(192, 48))]);
    return [text.backend, image.backend, text.predictions.length, image.predictions.length];
  });
  expect(answers).toEqual(['webgpu', 'webgpu', 2, 2]);
});
