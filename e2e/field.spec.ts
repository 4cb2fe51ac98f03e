import { expect, test, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { logPage, meteredConnection, openModel, ROOT, seriousViolations, sidewaysOverflow, splitWords, withLantern } from './fixtures.ts';

/**
 * Field use: accessibility (axe, keyboard only), Hindi, data policy on a metered connection,
 * and no inference while the page is hidden.
 *
 * A metered connection is simulated by replacing `navigator.connection` before any app code
 * runs (fixtures.ts, meteredConnection); the page hidden by overriding `document.visibilityState` and
 * dispatching `visibilitychange`, exactly what a browser does when the tab goes to the background.
 */

const SCREENS = ['classify', 'models', 'metrics'] as const;

async function openScreen(page: Page, screen: (typeof SCREENS)[number]) {
  logPage(page);
  await page.goto(`/?tab=${screen}&model=fashion-mnist`);
  const ready = { classify: 'model-select', models: 'storage', metrics: 'metrics' }[screen];
  await page.getByTestId(ready).waitFor();
  if (screen === 'classify') {
    // Check the screen with a result on it too.
    await page.getByTestId('sample-bag').click();
    await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', 'Bag');
  }
}

for (const variant of [
  { name: 'light', colorScheme: 'light' as const, width: 1280 },
  { name: 'dark', colorScheme: 'dark' as const, width: 1280 },
  { name: '320 px', colorScheme: 'light' as const, width: 320 },
]) {
  test.describe(`axe, ${variant.name}`, () => {
    test.use({ colorScheme: variant.colorScheme, viewport: { width: variant.width, height: 800 } });
    for (const screen of SCREENS) {
      test(`${screen}: no serious or critical violations`, async ({ page }) => {
        await openScreen(page, screen);
        expect(await seriousViolations(page)).toEqual([]);
        // Nothing scrolls sideways at this width (tables scroll inside their own box).
        expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
      });
    }
  });
}

test('320 px: the three tabs fit one line, with a count of notices on Models', async ({ page }) => {
  await page.setViewportSize({ width: 320, height: 800 });
  // Two notices kept from an earlier session (a rollback and a revocation), as the registry keeps them.
  await page.addInitScript(() => localStorage.setItem('lantern.notices:lantern-models', JSON.stringify([
    { kind: 'rolled-back', id: 'spam-filter', version: '1.2.0', fallbackVersion: '1.0.0', reason: 'it failed 5 of its last 10 requests' },
    { kind: 'revoked', id: 'doc-orientation', version: '1.0.0' },
  ])));
  await openScreen(page, 'models');
  await expect(page.getByTestId('registry-notice')).toHaveCount(2);
  await expect(page.getByTestId('tab-models')).toHaveAccessibleName('Models 2 notices');
  const tops = await page.locator('nav.tabs .tab').evaluateAll((tabs) => tabs.map((tab) => tab.getBoundingClientRect().top));
  expect(tops).toHaveLength(3);
  expect(new Set(tops).size).toBe(1);
});

test('buttons in a row line up: a secondary button is as tall as its neighbours and starts a wrapped line at its edge', async ({ page }) => {
  await page.goto('/?tab=metrics');
  const actions = page.getByTestId('metrics').locator('.actions button');
  await expect(actions).toHaveCount(3);
  const boxes = await actions.evaluateAll((buttons) => buttons.map((b) => { const r = b.getBoundingClientRect(); return [r.top, r.height]; }));
  expect(new Set(boxes.map((b) => b.join())).size, JSON.stringify(boxes)).toBe(1);
  await page.setViewportSize({ width: 320, height: 800 });
  await openModel(page, 'doc-orientation');
  // The samples wrap at 320 px: the wrapped one starts where the line does.
  const lefts = await page.locator('.samples').evaluate((row) => [row.getBoundingClientRect().left, ...[...row.querySelectorAll('button')].map((b) => b.getBoundingClientRect().left)]);
  const wrapped = await page.locator('.samples button').evaluateAll((buttons) => buttons.map((b) => b.getBoundingClientRect().top));
  expect(new Set(wrapped).size).toBeGreaterThan(1);
  expect(lefts.slice(1)).toContain(lefts[0]);
});

test('200% zoom (640 CSS px at 1280): Hindi UI, no horizontal scrolling, no violations', async ({ page }) => {
  await page.setViewportSize({ width: 640, height: 400 });
  await page.addInitScript(() => localStorage.setItem('lantern.language', 'hi'));
  await openScreen(page, 'models');
  expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
  expect(await seriousViolations(page)).toEqual([]);
});

for (const { width, language } of [{ width: 320, language: 'en' }, { width: 390, language: 'en' }, { width: 320, language: 'hi' }]) {
  test(`${width} px, ${language}: the versions table keeps its words whole`, async ({ page }) => {
    await page.setViewportSize({ width, height: 800 });
    await page.addInitScript((lang) => localStorage.setItem('lantern.language', lang), language);
    await openScreen(page, 'models');
    expect(await page.locator('table.versions td').count()).toBeGreaterThan(0);
    expect(await splitWords(page, 'table.versions th, table.versions td')).toEqual([]);
    expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
  });
}

test('320 px: the metrics tables keep their figures whole and scroll in their own box', async ({ page }) => {
  await page.setViewportSize({ width: 320, height: 800 });
  await openScreen(page, 'classify');
  await page.getByTestId('tab-metrics').click();
  await expect(page.getByTestId('latency-table-fashion-mnist-wasm')).toBeVisible();
  expect(await splitWords(page, 'table.stats td')).toEqual([]);
  const scrolls = await page.locator('.table-scroll').evaluateAll((boxes) => boxes.map((box) => ({ scrolls: box.scrollWidth > box.clientWidth, focusable: box.tabIndex === 0 })));
  expect(scrolls.some((box) => box.scrolls)).toBe(true);
  // A box that scrolls is a Tab stop (keyboard users scroll it); one that fits is not.
  for (const box of scrolls) expect(box.focusable).toBe(box.scrolls);
  expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
  expect(await seriousViolations(page)).toEqual([]);
  // Each caption wraps to its box and stays in view while the table scrolls under it.
  expect(await captionsOutsideTheirBox(page)).toEqual([]);
  await page.locator('.table-scroll').evaluateAll((boxes) => boxes.forEach((box) => (box.scrollLeft = box.scrollWidth)));
  expect(await captionsOutsideTheirBox(page)).toEqual([]);
});

/** The captions drawn (even partly) outside the visible part of their scroll box. */
function captionsOutsideTheirBox(page: Page): Promise<string[]> {
  return page.locator('.table-scroll caption').evaluateAll((captions) => captions.filter((caption) => {
    const box = caption.closest('.table-scroll')!.getBoundingClientRect();
    const text = document.createRange();
    text.selectNodeContents(caption);
    return [...text.getClientRects()].some((line) => line.left < box.left - 1 || line.right > box.right + 1);
  }).map((caption) => caption.textContent ?? ''));
}

test('controls are at least 44 px tall and focus is visible', async ({ page }) => {
  await openModel(page, 'spam-filter');
  const small = await page.evaluate(() => [...document.querySelectorAll<HTMLElement>('button, select, textarea, label.button')]
    .filter((el) => el.offsetParent !== null && el.getBoundingClientRect().height < 44)
    .map((el) => el.dataset.testid ?? el.textContent));
  expect(small).toEqual([]);
  await page.keyboard.press('Tab');
  const outline = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
  expect(outline).not.toBe('none');
});

/** Presses Tab until the element with `testId` has focus; fails if it is not in the tab order. */
async function tabTo(page: Page, testId: string) {
  for (let i = 0; i < 30; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((id) => (document.activeElement as HTMLElement | null)?.dataset.testid === id, testId)) return;
  }
  throw new Error(`${testId} is not reachable with Tab`);
}

test('keyboard only: classify a text', async ({ page }) => {
  await openModel(page, 'spam-filter');
  await tabTo(page, 'text-input');
  await page.keyboard.type('WINNER!! You have won a free prize. Call now to claim your cash reward, limited offer!!!');
  await tabTo(page, 'classify-text');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', 'spam');
  // The result is inside a live region, so screen readers announce it.
  await expect(page.locator('[aria-live="polite"]').getByTestId('result')).toBeVisible();
});

test('keyboard only: classify an image (file picker opened with Space)', async ({ page }) => {
  await openModel(page, 'doc-orientation');
  // Listening turns Playwright's file-chooser interception on, without waiting for the browser to
  // confirm it: a key press (one protocol message, unlike a click) could overtake it and open no
  // interceptable chooser. Listening before the Tab round trips leaves it time.
  const chooser = page.waitForEvent('filechooser');
  await tabTo(page, 'image-file');
  await page.keyboard.press('Space');
  await (await chooser).setFiles({ name: 'upright.png', mimeType: 'image/png', buffer: readFileSync(join(ROOT, 'models/doc-orientation/samples/upright.png')) });
  await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', '0');
  await expect(page.locator('[aria-live="polite"]').getByTestId('result')).toBeVisible();
});

test('keyboard only: the Models screen\'s bundle picker is a button that opens the file chooser', async ({ page }) => {
  await page.goto('/?tab=models');
  await page.getByTestId('storage').waitFor();
  const picker = page.locator('label', { has: page.getByTestId('bundle-file') });
  // Drawn as a button, not the browser's own "Choose file / No file chosen" control.
  expect(await picker.evaluate((label) => label.classList.contains('button'))).toBe(true);
  expect((await picker.boundingBox())!.height).toBeGreaterThanOrEqual(44);
  expect((await page.getByTestId('bundle-file').boundingBox())!.width).toBeLessThanOrEqual(1);
  const chooser = page.waitForEvent('filechooser');
  await tabTo(page, 'bundle-file');
  expect(await picker.evaluate((label) => getComputedStyle(label).outlineStyle)).not.toBe('none');
  await page.keyboard.press('Space');
  await (await chooser).setFiles({ name: 'x.lantern', mimeType: 'application/octet-stream', buffer: Buffer.from('not a bundle') });
  await expect(page.getByTestId('models-error')).toContainText('not a Lantern model bundle');
});

test('a bundle file of a version already installed says so instead of changing nothing in silence', async ({ page }) => {
  logPage(page);
  await page.goto('/?tab=models');
  // Headless Chromium on Linux cannot share files: the export is a download.
  const download = page.waitForEvent('download');
  await page.getByTestId('share-spam-filter@1.0.0').click();
  const bundle = await (await download).path();
  await page.getByTestId('bundle-file').setInputFiles(bundle!);
  await expect(page.getByTestId('bundle-already-installed')).toHaveText(/^.+ 1\.0\.0 from this bundle file is already installed on this device\.$/);
  await expect(page.getByTestId('models-error')).toHaveCount(0);
  await expect(page.getByTestId('version-spam-filter@1.0.0')).toHaveAttribute('data-status', 'active');
  // The next action's outcome replaces it.
  await page.getByTestId('bundle-file').setInputFiles({ name: 'x.lantern', mimeType: 'application/octet-stream', buffer: Buffer.from('not a bundle') });
  await expect(page.getByTestId('models-error')).toBeVisible();
  await expect(page.getByTestId('bundle-already-installed')).toHaveCount(0);
});

test('the Models screen says whether the browser may delete the models, and asks it to keep them', async ({ page, browser }) => {
  await page.goto('/?tab=models');
  await page.getByTestId('storage').waitFor();
  // A fresh profile and an app not installed: Chromium promises nothing, and says no when asked.
  expect(await page.evaluate(() => navigator.storage.persisted())).toBe(false);
  await expect(page.getByTestId('storage-not-kept')).toContainText('may delete these models');
  await page.getByTestId('keep-storage').click();
  await expect(page.getByTestId('keep-declined')).toContainText('Installing Lantern');
  // What an installed app gets: the browser's permission to keep its storage.
  const { targetInfo } = await (await page.context().newCDPSession(page)).send('Target.getTargetInfo');
  await (await browser.newBrowserCDPSession()).send('Browser.grantPermissions', {
    origin: new URL(page.url()).origin, permissions: ['durableStorage'], browserContextId: targetInfo.browserContextId,
  });
  await page.getByTestId('keep-storage').click();
  await expect(page.getByTestId('storage-kept')).toContainText('keeps these models');
  await expect(page.getByTestId('storage-not-kept')).toHaveCount(0);
  expect(await page.evaluate(() => navigator.storage.persisted())).toBe(true);
  await page.reload();
  await expect(page.getByTestId('storage-kept')).toBeVisible();
});

test.describe('a touch-only phone', () => {
  test.use({ hasTouch: true, isMobile: true, viewport: { width: 360, height: 800 } });
  test('is not told to drop or paste images, which a finger cannot do; the picker is there', async ({ page }) => {
    await page.goto('/?model=fashion-mnist');
    await expect(page.getByTestId('image-file')).toBeAttached();
    expect(await page.evaluate(() => matchMedia('(hover: none) and (pointer: coarse)').matches)).toBe(true);
    await expect(page.getByTestId('drop-hint')).toBeHidden();
  });

  test('a tapped sample\'s answer comes into view, though the form fills the screen above it', async ({ page }) => {
    await page.setViewportSize({ width: 360, height: 740 });
    await page.goto('/?model=spam-filter');
    await page.getByTestId('sample-ham').tap();
    await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', 'ham');
    await expect(page.getByTestId('top-label')).toBeInViewport();
    expect(await page.evaluate(() => scrollY)).toBeGreaterThan(0);
  });
});

test('with a mouse, the drop zone says images can be dropped or pasted', async ({ page }) => {
  await page.goto('/?model=fashion-mnist');
  await expect(page.getByTestId('drop-hint')).toBeVisible();
  await expect(page.getByTestId('drop-hint')).toHaveText('or drop or paste images here');
});

test.describe('Hindi from the browser language', () => {
  test.use({ locale: 'hi-IN' });
  test('defaults to Hindi, shows Hindi display names and keeps the model label', async ({ page }) => {
    await openModel(page, 'fashion-mnist');
    await expect(page.locator('html')).toHaveAttribute('lang', 'hi');
    await expect(page.getByTestId('tab-classify')).toHaveText('वर्गीकरण');
    await expect(page.getByTestId('language')).toHaveValue('hi');
    await page.getByTestId('sample-bag').click();
    await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', 'Bag');
    await expect(page.getByTestId('top-label').locator('.label')).toContainText('थैला');
  });

  test('the Models screen\'s catalog errors are Hindi sentences, not the runtime\'s English', async ({ page, context }) => {
    const catalogRequests: string[] = [];
    page.on('request', (request) => { if (request.url().includes('models.example.org')) catalogRequests.push(request.url()); });
    await page.goto('/?tab=models');
    await page.getByTestId('storage').waitFor();
    // The automatic check on opening has finished.
    await expect(page.getByTestId('check-updates')).toBeEnabled();
    await context.setOffline(true);
    await page.getByTestId('check-updates').click();
    const offline = page.getByTestId('catalog-error').getByTestId('error-text');
    await expect(offline).toHaveText('अभी अपडेट नहीं जाँचे जा सकते। कैटलॉग तक नहीं पहुँचा जा सका: डिवाइस शायद ऑफ़लाइन है। इंस्टॉल मॉडल काम करते रहेंगे।');
    await context.setOffline(false);

    // Typed without its scheme: refused by the form, not fetched from Lantern's own origin.
    await page.getByTestId('catalog-url').fill('models.example.org/catalog.json');
    await page.getByTestId('add-catalog').click();
    await expect(page.getByTestId('add-model-error')).toHaveText('पूरा पता लिखें, जो https:// से शुरू हो।');
    await expect(page.getByTestId('catalog-url')).toHaveAttribute('aria-invalid', 'true');
    // An origin this deployment does not allow: named, in Hindi.
    await page.getByTestId('catalog-url').fill('https://models.example.org/catalog.json');
    await page.getByTestId('add-catalog').click();
    await expect(page.getByTestId('add-model-error')).toHaveAttribute('data-code', 'NETWORK');
    await expect(page.getByTestId('add-model-error').getByTestId('error-text')).toHaveText('https://models.example.org ऐसा मॉडल स्रोत नहीं है जिसकी यह डिप्लॉयमेंट अनुमति देता है; कैटलॉग नहीं लाया गया।');
    expect(catalogRequests).toEqual([]);
  });
});

test('the language switch re-renders the whole UI and is remembered', async ({ page }) => {
  await openModel(page, 'doc-orientation');
  await page.getByTestId('sample-upright').click();
  await expect(page.getByTestId('top-label').locator('.label')).toContainText('Upright');
  await page.getByTestId('language').selectOption('hi');
  await expect(page.locator('html')).toHaveAttribute('lang', 'hi');
  await expect(page.getByTestId('tab-models')).toHaveText('मॉडल');
  await expect(page.getByRole('heading', { name: 'परिणाम' })).toBeVisible();
  // The result already on screen switches too, without classifying again.
  await expect(page.getByTestId('top-label').locator('.label')).toContainText('सीधा');
  await page.reload();
  await expect(page.getByTestId('tab-classify')).toHaveText('वर्गीकरण');
  await page.getByTestId('language').selectOption('en');
  await expect(page.getByTestId('tab-classify')).toHaveText('Classify');
});

test.describe('on a metered connection', () => {
  test.beforeEach(async ({ page }) => meteredConnection(page));

  test('skips the automatic update check, shows the size and asks before downloading', async ({ page }) => {
    logPage(page);
    await page.goto('/?tab=models');
    await expect(page.getByTestId('data-settings')).toHaveAttribute('data-metered', 'true');
    await expect(page.getByTestId('data-wifi-only')).toBeChecked();
    await expect(page.getByTestId('auto-check-skipped')).toBeVisible();
    await page.getByTestId('remove-fashion-mnist').click();
    await page.getByTestId('confirm-remove-yes').click();
    await expect(page.getByTestId('model-fashion-mnist')).toHaveCount(0);
    await page.getByTestId('check-updates').click();
    await page.getByTestId('install-fashion-mnist').click();
    const dialog = page.getByTestId('confirm-download');
    await expect(dialog).toBeVisible();
    await expect(dialog).toContainText(/\d+(\.\d)?\s*(KB|kB)/);
    await page.getByTestId('confirm-no').click();
    await expect(dialog).toBeHidden();
    await expect(page.getByTestId('model-fashion-mnist')).toHaveCount(0);
    await page.getByTestId('install-fashion-mnist').click();
    await page.getByTestId('confirm-yes').click();
    await expect(page.getByTestId('model-fashion-mnist')).toBeVisible();
  });

  test('"any connection" lets the automatic check run; the choice persists', async ({ page }) => {
    logPage(page);
    await page.goto('/?tab=models');
    await page.getByTestId('data-any').check();
    await page.reload();
    await expect(page.getByTestId('data-any')).toBeChecked();
    await expect(page.getByTestId('storage')).toBeVisible();
    await expect(page.getByTestId('auto-check-skipped')).toHaveCount(0);
  });
});

test('an unmetered connection downloads without asking', async ({ page }) => {
  await page.addInitScript(() => {
    Object.defineProperty(Navigator.prototype, 'connection', { get: () => Object.assign(new EventTarget(), { type: 'wifi', saveData: false }), configurable: true });
  });
  logPage(page);
  await page.goto('/?tab=models');
  await expect(page.getByTestId('auto-check-skipped')).toHaveCount(0);
  await page.getByTestId('remove-spam-filter').click();
  await page.getByTestId('confirm-remove-yes').click();
  await page.getByTestId('install-spam-filter').click();
  await expect(page.getByTestId('model-spam-filter')).toBeVisible();
  await expect(page.getByTestId('confirm-download')).toHaveCount(0);
});

test('"Remove model" asks first and says what is lost; Cancel and Escape keep the model, only Remove removes it', async ({ page, context }) => {
  logPage(page);
  await page.goto('/?tab=models');
  await page.getByTestId('storage').waitFor();
  const dialog = page.getByTestId('confirm-remove');
  await page.getByTestId('remove-spam-filter').click();
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('heading')).toHaveText(/^Remove .+\?$/);
  await expect(dialog).toContainText(/All its versions \(\d+(\.\d)? (KB|kB|MB)\) are deleted from this device/);
  await expect(page.getByTestId('confirm-remove-offline')).toHaveCount(0);
  // Focus starts on the answer that loses nothing.
  await expect(page.getByTestId('confirm-remove-no')).toBeFocused();
  await page.getByTestId('confirm-remove-no').click();
  await expect(dialog).toHaveCount(0);
  await expect(page.getByTestId('version-spam-filter@1.0.0')).toHaveAttribute('data-status', 'active');

  // Offline, a removed model cannot be downloaded again, and the question says so.
  await context.setOffline(true);
  await page.getByTestId('remove-spam-filter').click();
  await expect(page.getByTestId('confirm-remove-offline')).toHaveText('You are offline: it cannot be downloaded again until the device is back online.');
  // Open as a modal (shown after the render), so Escape reaches it.
  await expect(page.getByTestId('confirm-remove-no')).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  await expect(page.getByTestId('version-spam-filter@1.0.0')).toHaveAttribute('data-status', 'active');
  await context.setOffline(false);

  await page.getByTestId('remove-spam-filter').click();
  await page.getByTestId('confirm-remove-yes').click();
  await expect(page.getByTestId('model-spam-filter')).toHaveCount(0);
  // Its card, and the button that had focus, are gone: the screen says what happened, and focus goes there.
  await expect(page.getByTestId('model-removed')).toHaveText(/^.+ was removed from this device\. While online, it can be installed again from Available models\.$/);
  await expect(page.getByTestId('model-removed')).toBeFocused();
});

async function setHidden(page: Page, hidden: boolean) {
  await page.evaluate((h) => {
    Object.defineProperty(document, 'visibilityState', { value: h ? 'hidden' : 'visible', configurable: true });
    Object.defineProperty(document, 'hidden', { value: h, configurable: true });
    document.dispatchEvent(new Event('visibilitychange'));
  }, hidden);
}

const stats = (page: Page) => withLantern(page, (lantern) => lantern.schedulerStats);

test('no inference runs while the page is hidden; it resumes when visible', async ({ page }) => {
  await openModel(page, 'spam-filter');
  await setHidden(page, true);
  await page.getByTestId('sample-spam').click();
  await expect(page.getByTestId('status')).toContainText('Classifying');
  await expect.poll(() => stats(page)).toMatchObject({ queued: 1, running: 0 });
  // A round trip to the (running) worker: had the hidden page dispatched the request, it would be running by now.
  const afterRoundTrip = await withLantern(page, async (lantern) => ({ workers: (await lantern.workerMemory()).length, ...lantern.schedulerStats }));
  expect(afterRoundTrip).toMatchObject({ workers: 1, queued: 1, running: 0 });
  await expect(page.getByTestId('result')).toHaveCount(0);
  await page.getByTestId('tab-metrics').click();
  await expect(page.getByTestId('metrics')).toHaveAttribute('data-requests', '0');
  await page.getByTestId('tab-classify').click();
  await setHidden(page, false);
  // The view remounted, so ask again; the queued request ran too (metrics count both).
  await page.getByTestId('sample-spam').click();
  await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', 'spam');
  await expect.poll(() => stats(page)).toMatchObject({ queued: 0, running: 0 });
});

test('a low-end device gets one thread and small defaults', async ({ page }) => {
  await page.addInitScript(() => {
    Object.defineProperty(Navigator.prototype, 'deviceMemory', { get: () => 1, configurable: true });
  });
  await openModel(page, 'spam-filter');
  await expect(page.getByTestId('low-end')).toBeVisible();
  await expect(page.getByTestId('threads')).toContainText('1');
  await page.getByTestId('sample-ham').click();
  await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', 'ham');
});

test('on a link that connects but never answers, an installed app classifies at once; its checks wait in the background', async ({ page }) => {
  await openModel(page, 'spam-filter');
  await page.getByTestId('sample-spam').click();
  await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', 'spam');
  // Everything a start asks the network: the deployment files and the built-in model list.
  const hanging: string[] = [];
  await page.route(/\/(registry-config|trust-store)\.json$|\/models\/catalog(\.sig)?\.json$/, (route) => {
    hanging.push(new URL(route.request().url()).pathname); // never answered
  });
  // Each step well under the 30 s after which a silent connection is given up
  // (DEFAULT_STALL_MS): neither the screen nor the answer waited for those requests.
  await page.reload();
  await page.getByTestId('sample-spam').click({ timeout: 15_000 });
  await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', 'spam', { timeout: 15_000 });
  expect(hanging).toEqual(expect.arrayContaining(['/registry-config.json', '/trust-store.json']));
});
