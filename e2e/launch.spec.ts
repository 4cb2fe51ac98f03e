import { expect, test, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { logPage, ROOT, waitForServiceWorker } from './fixtures.ts';

/** The web app manifest's entry points, exercised the way Chromium would open them. */

const spam = 'Congratulations! You won a FREE cruise, call now to claim your prize';

test('the manifest declares id, shortcuts, file and share handlers; the touch icon is linked and served', async ({ page, request }) => {
  await page.goto('/');
  const href = await page.locator('link[rel="manifest"]').getAttribute('href');
  const manifest = await (await request.get(href!)).json() as {
    id: string; shortcuts: { url: string }[]; file_handlers: { action: string; accept: Record<string, string[]> }[]; share_target: unknown;
  };
  expect(manifest.id).toBe('/');
  expect(manifest.shortcuts.map((s) => s.url)).toEqual(['/?task=image-classification', '/?task=text-classification']);
  expect(manifest.file_handlers[0]).toMatchObject({ action: '/?task=image-classification', accept: { 'image/*': expect.arrayContaining(['.jpg', '.png', '.avif']) } });
  expect(manifest.share_target).toEqual({
    action: '/share-target',
    method: 'POST',
    enctype: 'multipart/form-data',
    params: { title: 'title', text: 'text', url: 'url', files: [{ name: 'image', accept: ['image/*', '.png', '.jpg', '.jpeg', '.webp', '.gif', '.avif'] }] },
  });
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

test('a link naming a model not on this device says so and shows another model meanwhile', async ({ page }) => {
  await page.goto('/?model=acme/not-installed');
  await expect(page.getByTestId('launch-model-missing')).toContainText('acme/not-installed');
  await expect(page.getByTestId('model-select')).not.toHaveValue('');
});

test('share target: the URL a text share opens is classified with a text model', async ({ page }) => {
  await page.goto(`/?title=${encodeURIComponent('Offer')}&text=${encodeURIComponent(spam)}`);
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

test.describe('share target: what a share sheet posts, answered by the service worker', () => {
  test.use({ serviceWorkers: 'allow' });

  /**
   * Installs the app's service worker, then posts a share the way a share sheet does: a
   * multipart POST navigation to the manifest's action. The form lives on a blank page, like the
   * browser's own share request, outside the app's CSP (whose `form-action 'none'` forbids the
   * app's pages to post forms).
   */
  async function postShare(page: Page, fields: Record<string, string>, images: string[] = []): Promise<void> {
    logPage(page);
    await page.goto('/');
    await waitForServiceWorker(page);
    const action = new URL('/share-target', page.url()).href;
    await page.goto('about:blank');
    await page.evaluate(({ action, fields }) => {
      const form = Object.assign(document.createElement('form'), { method: 'post', action, enctype: 'multipart/form-data' });
      for (const [name, value] of Object.entries(fields)) form.append(Object.assign(document.createElement('input'), { name, value }));
      form.append(Object.assign(document.createElement('input'), { type: 'file', name: 'image', multiple: true }));
      document.body.append(form);
    }, { action, fields });
    await page.locator('input[type=file]').setInputFiles(images.map((path) => ({ name: basename(path), mimeType: 'image/png', buffer: readFileSync(join(ROOT, path)) })));
    await page.locator('form').evaluate((form: HTMLFormElement) => form.submit());
  }

  test('images shared to Lantern are classified in order by the first image model, and the shared cache is emptied', async ({ page }) => {
    await postShare(page, { title: 'Catalogue' }, ['models/fashion-mnist/samples/trouser.png', 'models/fashion-mnist/samples/ankle-boot.png']);
    await expect(page).toHaveURL(/\/\?task=image-classification&shared=[\w-]+$/);
    await expect(page.getByTestId('model-select')).toHaveValue('fashion-mnist');
    const batch = page.getByTestId('batch');
    await expect(batch.getByTestId('batch-row-0')).toHaveAttribute('data-label', 'Trouser');
    await expect(batch.getByTestId('batch-row-0')).toContainText('trouser.png');
    await expect(batch.getByTestId('batch-row-1')).toHaveAttribute('data-label', 'Ankle boot');
    // Empty, not necessarily gone: the offline check (offline-readiness.ts) opens every cache it lists.
    expect(await page.evaluate(async () => (await (await caches.open('lantern-shared')).keys()).length)).toBe(0);
    // Reloading the app does not bring the images back.
    await page.reload();
    await expect(page.getByTestId('model-select')).toHaveValue('fashion-mnist');
    await expect(page.getByTestId('batch')).toHaveCount(0);
  });

  test('text shared to Lantern is classified with a text model', async ({ page }) => {
    await postShare(page, { title: 'Offer', text: spam, url: '' });
    await expect(page).toHaveURL(/\/\?title=Offer&text=Congratulations/);
    await expect(page.getByTestId('text-input')).toHaveValue(/FREE cruise/);
    await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', 'spam');
  });
});

test('the open tab is in the URL: Back and Forward move between tabs, a reload keeps the tab, ?model= stays', async ({ page }) => {
  logPage(page);
  await page.goto('/?model=spam-filter');
  await expect(page.getByTestId('model-select')).toHaveValue('spam-filter');
  const current = (tab: string) => expect(page.getByTestId(`tab-${tab}`)).toHaveAttribute('aria-current', 'page');
  await page.getByTestId('tab-models').click();
  await page.getByTestId('storage').waitFor();
  expect(Object.fromEntries(new URL(page.url()).searchParams)).toEqual({ model: 'spam-filter', tab: 'models' });
  await page.getByTestId('tab-metrics').click();
  await page.getByTestId('metrics').waitFor();
  // Tapping the open tab again adds no history entry.
  await page.getByTestId('tab-metrics').click();

  await page.reload();
  await current('metrics');
  await page.getByTestId('metrics').waitFor();

  await page.goBack();
  await current('models');
  await page.getByTestId('storage').waitFor();
  await page.goBack();
  await current('classify');
  await expect(page.getByTestId('model-select')).toHaveValue('spam-filter');
  await page.goForward();
  await current('models');
});
