import { expect, test, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openModel, ROOT, withLantern } from './fixtures.ts';
import { crashEveryWorker, crashOnNextMessage } from './worker-faults.ts';

/**
 * Fault injection against the real worker pool (production build, WASM): worker crashes in the
 * middle of batches, a flood of requests, and inputs that are hostile or odd (EXIF rotation,
 * invalid UTF-16). Storage faults and releases are in store.spec.ts and gate.spec.ts; WebGPU
 * device loss in faults-webgpu.spec.ts.
 */
const spam = readFileSync(join(ROOT, 'models/spam-filter/samples/spam.txt'), 'utf8');
const ham = readFileSync(join(ROOT, 'models/spam-filter/samples/ham.txt'), 'utf8');

type Outcome = { label: string; retried: boolean } | { error: string };

/** `n` requests alternating spam and ham, sent at once; each settles to its label or its error's name. */
function burst(page: Page, n: number): Promise<Outcome[]> {
  return withLantern(page, (lantern, { n, spam, ham }) => Promise.all(Array.from({ length: n }, (_, i) => lantern.classify('spam-filter', { kind: 'text', text: i % 2 ? ham : spam })
    .then((r): Outcome => ({ label: r.predictions[0]!.label, retried: r.retried }), (e: Error): Outcome => ({ error: e.name })))), { n, spam, ham });
}

test('a worker crash mid-batch: one crash is retried invisibly, repeated crashes fail clearly, then the pool recovers', async ({ page }) => {
  await openModel(page, 'spam-filter', '&backlogWorkers=0');
  await burst(page, 1);
  // 1. The worker dies (self.close(), like an OOM kill) as the burst's batch reaches it.
  await crashOnNextMessage(page);
  const once = await burst(page, 64);
  // 2. Every fresh worker dies too: a batch whose retry also crashes fails with WorkerCrashedError.
  const stopCrashing = await crashEveryWorker(page);
  const storm = await burst(page, 32);
  stopCrashing();
  // 3. Crashes stop: everything answers again.
  const after = await burst(page, 32);

  const expectCorrect = (list: Outcome[], what: string) => list.forEach((o, i) => {
    if ('label' in o) expect(o.label, `${what} ${i}`).toBe(i % 2 ? 'ham' : 'spam');
  });
  expect(once.filter((o) => 'error' in o)).toEqual([]);
  expectCorrect(once, 'after one crash, request');
  expect(once.filter((o) => 'retried' in o && o.retried).length).toBeGreaterThan(0);

  const stormErrors = storm.flatMap((o) => ('error' in o ? [o.error] : []));
  expect(stormErrors.length).toBeGreaterThan(0);
  expect(new Set(stormErrors)).toEqual(new Set(['WorkerCrashedError']));
  expectCorrect(storm, 'during the crash storm, request');

  expect(after.filter((o) => 'error' in o)).toEqual([]);
  expectCorrect(after, 'after recovery, request');
});

test('the UI shows a crash that survived its retry as a clear error, and the next request works', async ({ page }) => {
  await openModel(page, 'spam-filter', '&backlogWorkers=0');
  await page.getByTestId('sample-spam').click();
  await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', 'spam');
  // Kill every worker the moment it starts, for the duration of one click.
  const stopCrashing = await crashEveryWorker(page);
  await page.getByTestId('sample-ham').click();
  const error = page.getByTestId('error');
  await expect(error).toHaveAttribute('data-code', 'WORKER_CRASHED');
  stopCrashing();
  await page.getByTestId('sample-ham').click();
  await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', 'ham');
});

test('a flood of 10,000 requests: exactly the excess gets BusyError, every accepted answer is correct, memory stays bounded', async ({ page }) => {
  test.setTimeout(180_000);
  await openModel(page, 'spam-filter', '&backlogWorkers=0&maxQueued=256');
  const out = await withLantern(page, async (lantern, { spam, ham }) => {
    const heap = () => (performance as unknown as { memory: { usedJSHeapSize: number } }).memory.usedJSHeapSize;
    await lantern.classify('spam-filter', { kind: 'text', text: spam });
    const before = heap();
    // Paused, nothing leaves the queue: it fills to its bound and everything beyond is refused.
    lantern.pause();
    let refused = 0;
    const promises = Array.from({ length: 10_000 }, (_, i) => lantern.classify('spam-filter', { kind: 'text', text: i % 2 ? ham : spam }));
    for (const p of promises) p.catch(() => refused++);
    // Each request is queued or refused once its model is described (a cached descriptor takes
    // a few microtasks; after an update check cleared the cache, an IndexedDB read). Paused,
    // nothing leaves the queue: wait until every request is one or the other.
    while (refused + lantern.queueDepth < 10_000) await new Promise((resolve) => setTimeout(resolve, 0));
    const depth = lantern.queueDepth;
    const peak = heap();
    lantern.resume();
    const settled = await Promise.allSettled(promises);
    return {
      labels: settled.map((s) => (s.status === 'fulfilled' ? s.value.predictions[0]!.label : null)),
      errors: settled.map((s) => (s.status === 'rejected' ? (s.reason as Error).name : null)),
      depth,
      heapGrowthMb: (Math.max(peak, heap()) - before) / 1048576,
    };
  }, { spam, ham });
  const busy = out.errors.filter((e) => e === 'BusyError').length;
  expect(out.errors.filter((e) => e !== null && e !== 'BusyError')).toEqual([]);
  // The queue holds exactly its bound of 256; the other 9,744 are refused at once with BusyError.
  expect(out.depth).toBe(256);
  expect(out.labels.filter((l) => l !== null)).toHaveLength(256);
  expect(busy).toBe(10_000 - 256);
  out.labels.forEach((label, i) => {
    if (label !== null) expect(label, `request ${i}`).toBe(i % 2 ? 'ham' : 'spam');
  });
  expect(out.heapGrowthMb).toBeLessThan(64);
});

for (const { sample, label } of [{ sample: 'upright', label: '0' }, { sample: 'upside-down', label: '180' }]) {
  test(`an EXIF-rotated JPEG is classified in its displayed orientation (${sample})`, async ({ page }) => {
    await openModel(page, 'doc-orientation', '&backlogWorkers=0');
    const out = await withLantern(page, async (lantern, sample) => {
      // A JPEG whose pixels are stored rotated 90° counter-clockwise, with and without EXIF orientation 6.
      const original = await (await fetch(sample)).blob();
      const bitmap = await createImageBitmap(original);
      const canvas = new OffscreenCanvas(bitmap.height, bitmap.width);
      const ctx = canvas.getContext('2d')!;
      ctx.translate(0, bitmap.width);
      ctx.rotate(-Math.PI / 2);
      ctx.drawImage(bitmap, 0, 0);
      const jpeg = new Uint8Array(await (await canvas.convertToBlob({ type: 'image/jpeg', quality: 0.95 })).arrayBuffer());
      // APP1 "Exif", big-endian TIFF, one IFD0 entry: Orientation (0x0112) SHORT = 6 (rotate 90° clockwise to display).
      const app1 = new Uint8Array([0xff, 0xe1, 0x00, 0x22, 0x45, 0x78, 0x69, 0x66, 0, 0, 0x4d, 0x4d, 0x00, 0x2a, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0]);
      const tagged = new Uint8Array(jpeg.length + app1.length);
      tagged.set(jpeg.subarray(0, 2));
      tagged.set(app1, 2);
      tagged.set(jpeg.subarray(2), 2 + app1.length);
      const top = async (image: Blob) => (await lantern.classify('doc-orientation', { kind: 'image', image })).predictions[0]!;
      return {
        original: await top(original),
        tagged: await top(new Blob([tagged], { type: 'image/jpeg' })),
        untagged: await top(new Blob([jpeg], { type: 'image/jpeg' })),
      };
    }, `/models/doc-orientation/1.0.0/samples/${sample}.png`);
    expect(out.original.label).toBe(label);
    // Same answer as the upright original: the tag was applied (without it the model sees a 48-pixel-wide vertical strip).
    expect(out.tagged.label).toBe(label);
    expect(Math.abs(out.tagged.score - out.original.score)).toBeLessThan(0.15);
    expect(out.untagged.score).not.toBeCloseTo(out.tagged.score, 2);
  });
}

test('a closed ImageBitmap and a moved ArrayBuffer, bare or in the { kind } form, are refused as input; a callback on that form is not sent; the images batched with them answer', async ({ page }) => {
  await openModel(page, 'doc-orientation', '&backlogWorkers=0');
  const out = await withLantern(page, async (lantern) => {
    const pixels = new ImageData(64, 64);
    pixels.data.fill(200);
    const closed = await createImageBitmap(pixels);
    closed.close();
    const canvas = new OffscreenCanvas(64, 64);
    canvas.getContext('2d')!.putImageData(pixels, 0, 0);
    const bytes = await (await canvas.convertToBlob({ type: 'image/png' })).arrayBuffer();
    await lantern.classify('doc-orientation', bytes.slice(0));
    const moved = bytes.slice(0);
    await lantern.classify('doc-orientation', moved);
    // Held in the queue together, as requests from two screens would be, then sent as one batch.
    lantern.pause();
    const outcomes = Promise.allSettled([
      lantern.classify('doc-orientation', closed),
      lantern.classify('doc-orientation', moved),
      lantern.classify('doc-orientation', { kind: 'image', image: closed }),
      lantern.classify('doc-orientation', { kind: 'image', image: moved }),
      // An app's own bookkeeping on the object: postMessage cannot clone a function.
      lantern.classify('doc-orientation', { kind: 'image', image: pixels, onAnswer: () => undefined } as never),
      lantern.classify('doc-orientation', await createImageBitmap(pixels)),
    ]);
    lantern.resume();
    return (await outcomes).map((o) => (o.status === 'fulfilled' ? 'answered' : `${(o.reason as { name: string }).name}:${(o.reason as { details: { reason: string } }).details.reason}`));
  });
  expect(out).toEqual(['InputError:no-pixels', 'InputError:empty-file', 'InputError:no-pixels', 'InputError:empty-file', 'answered', 'answered']);
});

test('text with lone surrogates (invalid UTF-16) is classified, not an error', async ({ page }) => {
  await openModel(page, 'spam-filter', '&backlogWorkers=0');
  const labels = await withLantern(page, async (lantern, { spam, ham }) => {
    const broken = (text: string) => `\uD800${text.slice(0, 200)}\uDC00\uDFFF${text.slice(200)}\uD83D`;
    return Promise.all([spam, ham].map(async (t) => (await lantern.classify('spam-filter', { kind: 'text', text: broken(t) })).predictions[0]!.label));
  }, { spam, ham });
  expect(labels).toEqual(['spam', 'ham']);
});

test('IndexedDB upgraded by another tab: a clear StorageError, nothing lost, a reload recovers', async ({ context, page }) => {
  await page.goto('/?tab=models');
  await expect(page.getByTestId('version-spam-filter@1.0.0')).toHaveAttribute('data-status', 'active');
  // Another tab (say, a newer Lantern) opens the database at a higher version; ours steps aside.
  const other = await context.newPage();
  await other.goto('/?tab=classify');
  await other.evaluate(() => new Promise<void>((resolve) => {
    const request = indexedDB.open('lantern-models', 99);
    request.onupgradeneeded = () => request.transaction!.abort();
    request.onerror = () => resolve();
  }));
  await other.close();
  await page.getByTestId('remove-spam-filter').click();
  await page.getByTestId('confirm-remove-yes').click();
  const error = page.getByTestId('models-error');
  await expect(error).toHaveAttribute('data-code', 'STORAGE');
  await expect(error).toContainText('being upgraded by another Lantern tab');
  await page.reload();
  await expect(page.getByTestId('version-spam-filter@1.0.0')).toHaveAttribute('data-status', 'active');
  await page.getByTestId('tab-classify').click();
  await page.getByTestId('model-select').selectOption('spam-filter');
  await page.getByTestId('sample-spam').click();
  await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', 'spam');
});
