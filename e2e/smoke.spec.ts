import { expect, test } from '@playwright/test';

test('classifies the built-in spam sample in the worker', async ({ page }) => {
  page.on('console', (m) => console.log('[page]', m.text()));
  page.on('pageerror', (e) => console.log('[pageerror]', e.message));
  await page.goto('/?model=spam-filter');
  await page.getByTestId('sample-spam').click();
  await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', 'spam');
  console.log(await page.getByTestId('result').innerText());
});
