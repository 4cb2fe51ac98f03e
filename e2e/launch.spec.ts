import { expect, test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './fixtures.ts';

/** The web app manifest's entry points, exercised the way Chromium would open them. */

test('the manifest declares id, shortcuts, file and share handlers; the touch icon is linked and served', async ({ page, request }) => {
  await page.goto('/');
  const href = await page.locator('link[rel="manifest"]').getAttribute('href');
  const manifest = await (await request.get(href!)).json() as {
    id: string; shortcuts: { url: string }[]; file_handlers: { action: string; accept: Record<string, string[]> }[]; share_target: { action: string; method: string; enctype: string; params: Record<string, string> };
  };
  expect(manifest.id).toBe('/');
  expect(manifest.shortcuts.map((s) => s.url)).toEqual(['/?task=image-classification', '/?task=text-classification']);
  expect(manifest.file_handlers[0]).toMatchObject({ action: '/?task=image-classification', accept: { 'image/*': expect.arrayContaining(['.jpg', '.png', '.avif']) } });
  expect(manifest.share_target).toEqual({ action: '/', method: 'GET', enctype: 'application/x-www-form-urlencoded', params: { title: 'title', text: 'text', url: 'url' } });
  const icon = await page.locator('link[rel="apple-touch-icon"]').getAttribute('href');
  const response = await request.get(icon!);
  expect(response.headers()['content-type']).toBe('image/png');
});

test('shortcuts open the first model of their task', async ({ page }) => {
  await page.goto('/?task=text-classification');
  await expect(page.getByTestId('text-input')).toBeVisible();
  await page.goto('/?task=image-classification');
  await expect(page.getByTestId('image-file')).toBeAttached();
});

test('share target: text shared to Lantern is classified with a text model', async ({ page }) => {
  await page.goto(`/?title=${encodeURIComponent('Offer')}&text=${encodeURIComponent('Congratulations! You won a FREE cruise, call now to claim your prize')}`);
  await expect(page.getByTestId('text-input')).toHaveValue(/FREE cruise/);
  await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', 'spam');
});

test('file handler: images the OS opens with Lantern arrive through launchQueue and are classified', async ({ page }) => {
  // Headless Chromium has no installed app to launch; stand in for the browser's launchQueue.
  await page.addInitScript(() => {
    Object.defineProperty(window, 'launchQueue', {
      value: { setConsumer: (consumer: unknown) => { (window as unknown as { launchConsumer: unknown }).launchConsumer = consumer; } },
    });
  });
  await page.goto('/?task=image-classification&model=doc-orientation');
  await expect.poll(() => page.evaluate(() => 'launchConsumer' in window)).toBe(true);
  const upsideDown = [...readFileSync(join(ROOT, 'models/doc-orientation/samples/upside-down.png'))];
  await page.evaluate((bytes) => {
    const file = new File([new Uint8Array(bytes)], 'scan.png', { type: 'image/png' });
    (window as unknown as { launchConsumer: (p: unknown) => void }).launchConsumer({ files: [{ getFile: async () => file }] });
  }, upsideDown);
  await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', '180');
  await expect(page.getByTestId('thumbnail')).toBeVisible();
});
