import { expect, test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { corruptPng, encodePng, openModel, ROOT, SAMPLES } from './fixtures.ts';


test.describe('built-in samples on the default backend', () => {
  for (const s of SAMPLES) {
    test(`${s.model}: ${s.sample} → ${s.label} (WASM)`, async ({ page }) => {
      await openModel(page, s.model);
      await page.getByTestId(`sample-${s.sample}`).click();
      await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', s.label);
      await expect(page.getByTestId('backend')).toHaveAttribute('data-backend', 'wasm');
      await expect(page.getByTestId('model-version')).toContainText(s.model);
      await expect(page.getByTestId('threads')).toHaveAttribute('data-isolated', 'true');
    });
  }
});

test('forcing WebGPU without an adapter falls back to WASM and reports it', async ({ page }) => {
  await openModel(page, 'spam-filter', '&backend=webgpu');
  await page.getByTestId('sample-ham').click();
  await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', 'ham');
  await expect(page.getByTestId('backend')).toHaveAttribute('data-backend', 'wasm');
  await expect(page.getByTestId('backend-reason')).toContainText('WebGPU was requested but is unavailable');
});

test.describe('bad input gets a clear message and breaks nothing', () => {
  const upright = readFileSync(join(ROOT, 'models/doc-orientation/samples/upright.png'));

  async function pick(page: import('@playwright/test').Page, file: { name: string; mimeType: string; buffer: Buffer }) {
    await page.getByTestId('image-file').setInputFiles(file);
  }

  /** After any error, a good image must still classify: nothing broke. */
  async function stillWorks(page: import('@playwright/test').Page) {
    await pick(page, { name: 'upright.png', mimeType: 'image/png', buffer: upright });
    await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', '0');
  }

  test('a non-image file', async ({ page }) => {
    await openModel(page, 'doc-orientation');
    await pick(page, { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not an image') });
    await expect(page.getByTestId('error')).toHaveAttribute('data-code', 'INPUT');
    await expect(page.getByTestId('error-text')).toHaveText('That file is not an image (its type is text/plain).');
    await stillWorks(page);
  });

  test('an HTML page pretending to be a PNG', async ({ page }) => {
    await openModel(page, 'doc-orientation');
    await pick(page, { name: 'photo.png', mimeType: 'image/png', buffer: Buffer.from('<!doctype html><title>Login</title>') });
    await expect(page.getByTestId('error')).toHaveAttribute('data-code', 'INPUT');
    await expect(page.getByTestId('error-text')).toContainText('not an image Lantern can read');
    await stillWorks(page);
  });

  test('a corrupt image', async ({ page }) => {
    await openModel(page, 'doc-orientation');
    await pick(page, { name: 'corrupt.png', mimeType: 'image/png', buffer: corruptPng() });
    await expect(page.getByTestId('error')).toHaveAttribute('data-code', 'INPUT');
    await expect(page.getByTestId('error-text')).toHaveText('The image could not be decoded: the file is damaged or incomplete.');
    await stillWorks(page);
  });

  test('a truncated image', async ({ page }) => {
    await openModel(page, 'doc-orientation');
    await pick(page, { name: 'cut.png', mimeType: 'image/png', buffer: upright.subarray(0, 60) });
    await expect(page.getByTestId('error')).toHaveAttribute('data-code', 'INPUT');
    await stillWorks(page);
  });

  test('a 0-byte image', async ({ page }) => {
    await openModel(page, 'doc-orientation');
    await pick(page, { name: 'empty.png', mimeType: 'image/png', buffer: Buffer.alloc(0) });
    await expect(page.getByTestId('error-text')).toHaveText('The file is empty.');
    await stillWorks(page);
  });

  test('an 8000×8000 image is downscaled, not a crash', async ({ page }) => {
    await openModel(page, 'fashion-mnist');
    const big = encodePng(8000, 8000, (x, y) => ((x >> 9) + (y >> 9)) % 2 ? [255, 255, 255] : [0, 0, 0]);
    await pick(page, { name: 'big.png', mimeType: 'image/png', buffer: big });
    await expect(page.getByTestId('notes')).toContainText('Downscaled from 8000×8000');
    await expect(page.getByTestId('top-label')).toBeVisible();
  });

  test('an image bomb (tiny file claiming 60000×60000) is refused before decoding', async ({ page }) => {
    await openModel(page, 'doc-orientation');
    const bomb = Buffer.from(encodePng(1, 1, () => [0, 0, 0]));
    bomb.writeUInt32BE(60000, 16);
    bomb.writeUInt32BE(60000, 20);
    await pick(page, { name: 'bomb.png', mimeType: 'image/png', buffer: bomb });
    await expect(page.getByTestId('error-text')).toContainText('The image is too large (60,000×60,000 pixels');
    await stillWorks(page);
  });

  test('empty text', async ({ page }) => {
    await openModel(page, 'spam-filter');
    await page.getByTestId('text-input').fill('   ');
    await page.getByTestId('classify-text').click();
    await expect(page.getByTestId('error')).toHaveAttribute('data-code', 'INPUT');
    await expect(page.getByTestId('error-text')).toHaveText('The text is empty: type or paste something to classify.');
  });

  test('a 1 MB text is truncated to the model length, and says so', async ({ page }) => {
    await openModel(page, 'spam-filter');
    const huge = 'Dear team, the quarterly report is attached for review. '.repeat(Math.ceil(1_048_576 / 56)).slice(0, 1_048_576);
    // fill() with 1 MB is slow; set the value through the UI's input event instead.
    await page.getByTestId('text-input').evaluate((el, value) => {
      (el as HTMLTextAreaElement).value = value;
      el.dispatchEvent(new Event('input', { bubbles: true }));
    }, huge);
    await page.getByTestId('classify-text').click();
    await expect(page.getByTestId('notes')).toContainText('truncated to the model\'s 256 tokens');
    await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', 'ham');
  });

  test('in the Hindi UI, errors, notes and the backend reason are Hindi: no English sentence', async ({ page }) => {
    await page.addInitScript(() => localStorage.setItem('lantern.language', 'hi'));
    await openModel(page, 'doc-orientation');
    await pick(page, { name: 'corrupt.png', mimeType: 'image/png', buffer: corruptPng() });
    await expect(page.getByTestId('error')).toHaveAttribute('data-code', 'INPUT');
    await expect(page.getByTestId('error-text')).toHaveText('चित्र पढ़ा नहीं जा सका: फ़ाइल खराब या अधूरी है।');
    await pick(page, { name: 'upright.png', mimeType: 'image/png', buffer: upright });
    await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', '0');
    // The sentence is Hindi; only names (WebGPU, WASM) stay in Latin letters.
    const reason = await page.getByTestId('backend-reason').textContent();
    expect(reason).toMatch(/[\u0900-\u097F]/);
    expect(reason?.replace(/WebGPU|WASM/g, '')).not.toMatch(/[A-Za-z]/);
  });
});
