import { expect, test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodePng, openModel, ROOT, withLantern } from './fixtures.ts';

/**
 * Target g of issue 14: cancelling a running request (a second click, a new camera frame) never
 * costs the next request a worker restart. Asserted through what the runtime reports — the next
 * result is not a cold start, and no worker stopped — never through timings.
 */
const spam = readFileSync(join(ROOT, 'models/spam-filter/samples/spam.txt'), 'utf8');
const upright = readFileSync(join(ROOT, 'models/doc-orientation/samples/upright.png'));

test('a request cancelled while it runs is dropped; the next ones run warm on the same worker', async ({ page }) => {
  await openModel(page, 'doc-orientation', '&backlogWorkers=0');
  // A large image keeps the worker busy decoding long enough to be cancelled mid-run.
  const big = encodePng(4000, 4000, (x, y) => ((x >> 7) + (y >> 7)) % 2 ? [255, 255, 255] : [0, 0, 0]);
  const out = await withLantern(page, async (lantern, { big, upright, spam }) => {
    const image = (bytes: number[]) => new Blob([new Uint8Array(bytes)], { type: 'image/png' });
    const warm = [
      (await lantern.classify('doc-orientation', image(upright))).coldStart,
      (await lantern.classify('spam-filter', spam)).coldStart,
    ];
    const controller = new AbortController();
    const first = lantern.classify('doc-orientation', image(big), { signal: controller.signal }).then(() => 'answered', (e: Error) => e.name);
    // Cancel once the request is in the worker (dispatched), as a second click would.
    while (lantern.schedulerStats.running === 0) await new Promise(requestAnimationFrame);
    controller.abort();
    const next = await Promise.all([
      lantern.classify('doc-orientation', image(upright)),
      lantern.classify('spam-filter', spam),
    ]);
    return { warm, first: await first, next: next.map((r) => ({ label: r.predictions[0]!.label, cold: r.coldStart })), workersRunning: (await lantern.workerMemory()).length };
  }, { big: [...big], upright: [...upright], spam });
  expect(out.warm).toEqual([true, true]);
  expect(out.first).toBe('CancelledError');
  expect(out.next).toEqual([{ label: '0', cold: false }, { label: 'spam', cold: false }]);
  // The one worker was not stopped to cancel (a stopped worker reports no memory).
  expect(out.workersRunning).toBe(1);
});

test('a second click while the first classification runs: the second answers warm', async ({ page }) => {
  await openModel(page, 'doc-orientation', '&backlogWorkers=0');
  await page.getByTestId('sample-upright').click();
  await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', '0');
  const big = encodePng(4000, 4000, (x, y) => ((x >> 7) + (y >> 7)) % 2 ? [255, 255, 255] : [0, 0, 0]);
  await page.getByTestId('image-file').setInputFiles({ name: 'big.png', mimeType: 'image/png', buffer: big });
  await page.getByTestId('sample-upside-down').click();
  await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', '180');
  await expect(page.getByTestId('result')).toContainText('warm');
});
