import { expect, test } from '@playwright/test';
import { openModel } from './fixtures.ts';

/**
 * Chrome < 137, Firefox < 129 and Safari < 17 have WebCrypto without Ed25519. Simulated here by
 * refusing Ed25519 keys the way those browsers do: the built-in releases must still verify (with
 * @noble/ed25519), install and answer, and the fallback must be loaded only then.
 */
test('a browser without WebCrypto Ed25519 verifies releases with @noble/ed25519 and answers', async ({ page }) => {
  await page.addInitScript(() => {
    const subtle = crypto.subtle;
    const importKey = subtle.importKey.bind(subtle) as (...args: unknown[]) => Promise<CryptoKey>;
    const named = (algorithm: unknown) => (typeof algorithm === 'string' ? algorithm : (algorithm as { name?: string }).name);
    Object.defineProperty(subtle, 'importKey', {
      value: (format: unknown, data: unknown, algorithm: unknown, ...rest: unknown[]) => (named(algorithm) === 'Ed25519'
        ? Promise.reject(new DOMException('Algorithm: Unrecognized name', 'NotSupportedError'))
        : importKey(format, data, algorithm, ...rest)),
    });
  });
  const scripts: string[] = [];
  page.on('response', (response) => { if (response.url().endsWith('.js')) scripts.push(response.url()); });
  await openModel(page, 'spam-filter');
  await page.getByTestId('sample-spam').click();
  await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', 'spam');
  expect(scripts.some((url) => /\/assets\/ed25519-[\w-]+\.js$/.test(url))).toBe(true);
});

test('a browser with WebCrypto Ed25519 never loads the fallback', async ({ page }) => {
  const scripts: string[] = [];
  page.on('response', (response) => { if (response.url().endsWith('.js')) scripts.push(response.url()); });
  await openModel(page, 'spam-filter');
  await page.getByTestId('sample-spam').click();
  await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', 'spam');
  expect(scripts.filter((url) => /ed25519/.test(url))).toEqual([]);
});
