import { expect, test, type Page } from '@playwright/test';
import { join } from 'node:path';
import { openModels, publishBroken, releaseSuite, SPAM, useTestRegistry, versionRow } from './release-fixtures.ts';

/**
 * Release controls end to end (issue 15): fallback models and the result cache. Releases are
 * packed at test time with an ephemeral key and served cross-origin, one catalog per scenario.
 */
const suite = releaseSuite('release', async ({ work, key }) => {
  // A second text model with the spam filter's labels whose ONNX cannot be loaded.
  await publishBroken(work, join(work, 'pub', 'fallback'), key, '1.0.0', { id: 'spam-main', sameLabels: true });
});

async function classifyText(page: Page, modelId: string, text: string): Promise<void> {
  await page.getByTestId('tab-classify').click();
  await page.getByTestId('model-select').selectOption(modelId);
  await page.getByTestId('text-input').fill(text);
  await page.getByTestId('classify-text').click();
}

test('a primary whose load is broken is answered by its fallback, and the result says so', async ({ context, page }) => {
  await useTestRegistry(context, suite.catalogUrl('fallback'), suite.trustEntry);
  await openModels(page);
  await page.getByTestId('install-spam-main').click();
  await expect(versionRow(page, 'spam-main@1.0.0')).toHaveAttribute('data-status', 'active');
  // Without a fallback the broken model fails with its load error.
  await classifyText(page, 'spam-main', SPAM);
  await expect(page.getByTestId('error')).toHaveAttribute('data-code', 'MODEL_LOAD');
  // Only models with the same labels are offered: the spam filter, not the image models.
  await page.getByTestId('tab-models').click();
  const choice = page.getByTestId('fallback-spam-main');
  await expect(choice.locator('option')).toHaveText(['None', /\(spam-filter\)/]);
  await choice.selectOption('spam-filter');
  await classifyText(page, 'spam-main', SPAM);
  await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', 'spam');
  const said = page.getByTestId('answered-by-fallback');
  await expect(said).toHaveAttribute('data-requested', 'spam-main');
  await expect(said).toHaveAttribute('data-code', 'MODEL_LOAD');
  await expect(said).toContainText('spam-main could not answer; its fallback spam-filter answered instead.');
  await expect(page.getByTestId('model-version')).toContainText('spam-filter v1.0.0');
  await expect(page.getByTestId('notes')).toContainText('spam-main could not answer (The model could not be loaded');
  // A model with a working primary is not touched by its fallback setting: no fallback note.
  await classifyText(page, 'spam-filter', SPAM);
  await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', 'spam');
  await expect(page.getByTestId('answered-by-fallback')).toHaveCount(0);
});

test('with the result cache on, a repeated input is answered from memory and says so; off, it runs again', async ({ page }) => {
  await openModels(page);
  await page.getByTestId('cache-spam-filter').check();
  await classifyText(page, 'spam-filter', SPAM);
  await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', 'spam');
  await expect(page.getByTestId('cached')).toHaveCount(0);
  const first = await page.getByTestId('predictions').innerText();
  await page.getByTestId('classify-text').click();
  await expect(page.getByTestId('cached')).toBeVisible();
  expect(await page.getByTestId('predictions').innerText()).toBe(first);
  // The same text with different spacing tokenises identically: one entry for both.
  await page.getByTestId('text-input').fill(`  ${SPAM.replace(/ /g, '  ')}`);
  await page.getByTestId('classify-text').click();
  await expect(page.getByTestId('cached')).toBeVisible();
  // Nothing is written anywhere: no storage key holds a result or an input.
  const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }));
  expect(stored).not.toContain(SPAM.slice(0, 40));
  await page.getByTestId('tab-models').click();
  await page.getByTestId('cache-spam-filter').uncheck();
  await classifyText(page, 'spam-filter', SPAM);
  await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', 'spam');
  await expect(page.getByTestId('cached')).toHaveCount(0);
});
