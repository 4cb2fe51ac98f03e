import { expect, test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openModel, ROOT, withLantern } from './fixtures.ts';

/**
 * The pool under a sustained load (src/runtime/pool-policy.ts), in the real browser: the backlog
 * workers start (each a real worker with its own ORT), every answer stays right whichever worker
 * gave it, and the pool still answers a lone request afterwards. Which worker answered, and
 * when, is the unit tests' business (lantern.test.ts, pool-policy.test.ts); no timings here.
 */
const samples = ['upright', 'upside-down'].map((name) => [...readFileSync(join(ROOT, `models/doc-orientation/samples/${name}.png`))]);

test('a sustained load wakes the two backlog workers; every answer is right, and a lone request after it too', async ({ page }) => {
  test.setTimeout(120_000);
  await openModel(page, 'doc-orientation');
  const out = await withLantern(page, async (lantern, samples) => {
    // The samples drawn 8× larger: each takes the worker a few milliseconds to decode, so a
    // window of requests keeps it busy without a pause (tiny inputs leave it idle between batches).
    const enlarge = async (bytes: number[]) => {
      const bitmap = await createImageBitmap(new Blob([new Uint8Array(bytes)], { type: 'image/png' }));
      const canvas = new OffscreenCanvas(bitmap.width * 8, bitmap.height * 8);
      canvas.getContext('2d')!.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
      return new Uint8Array(await (await canvas.convertToBlob({ type: 'image/png' })).arrayBuffer());
    };
    const large = await Promise.all(samples.map(enlarge));
    const image = (i: number) => new Blob([large[i % 2]!], { type: 'image/png' });
    const expected = (i: number) => (i % 2 ? '180' : '0');
    const running = async () => (await lantern.workerMemory()).length;
    await lantern.classify('doc-orientation', image(0));
    const before = await running();
    // A sliding window of 64 in flight until the pool has grown and 256 more answers came back
    // (or 1,000 requests, when it never grows).
    const wrong: string[] = [];
    let sent = 0;
    let grownAt: number | undefined;
    let answered = 0;
    const lane = async (): Promise<void> => {
      while (sent < 1000 && (grownAt === undefined || answered < grownAt + 256)) {
        const i = sent++;
        const result = await lantern.classify('doc-orientation', image(i));
        answered++;
        if (result.predictions[0]!.label !== expected(i)) wrong.push(`${i}: ${result.predictions[0]!.label}`);
        if (grownAt === undefined && answered % 32 === 0 && (await running()) === 3) grownAt = answered;
      }
    };
    await Promise.all(Array.from({ length: 64 }, lane));
    const lone = await lantern.classify('doc-orientation', image(1));
    return { before, grownAt, answered, wrong, after: await running(), threads: await lantern.workerThreads(), lone: lone.predictions[0]!.label };
  }, samples);
  expect(out.before).toBe(1);
  expect(out.grownAt, `answered ${out.answered} without the pool growing`).toBeDefined();
  expect(out.wrong).toEqual([]);
  expect(out.after).toBe(3);
  // The backlog workers split the cores the first worker has alone.
  const [first, ...backlog] = out.threads;
  expect(backlog).toHaveLength(2);
  expect(backlog[0]).toBe(backlog[1]);
  expect(backlog[0]).toBeLessThanOrEqual(first!);
  expect(out.lone).toBe('180');
  // The Metrics screen says so.
  await page.getByTestId('tab-metrics').click();
  await expect(page.getByTestId('device-workers')).toHaveText(`3 (${out.threads.join(' + ')})`);
});
