import { expect, test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openModel, ROOT } from './fixtures.ts';

const spam = readFileSync(join(ROOT, 'models/spam-filter/samples/spam.txt'), 'utf8');
const ham = readFileSync(join(ROOT, 'models/spam-filter/samples/ham.txt'), 'utf8');

interface LoadOutcome {
  labels: (string | null)[];
  errors: (string | null)[];
  maxDepth: number;
  maxBatch: number;
  backends: string[];
}

/** Fires `count` requests at once at the real worker and samples the queue depth meanwhile. */
async function fire(page: import('@playwright/test').Page, count: number): Promise<LoadOutcome> {
  return page.evaluate(async ({ count, spam, ham }) => {
    type Result = { predictions: { label: string }[]; batchSize: number; backend: string };
    const lantern = (globalThis as unknown as { lantern: { classify: (id: string, input: unknown) => Promise<Result>; queueDepth: number } }).lantern;
    let maxDepth = 0;
    const sampler = setInterval(() => (maxDepth = Math.max(maxDepth, lantern.queueDepth)), 1);
    const settled = await Promise.allSettled(
      Array.from({ length: count }, (_, i) => {
        const promise = lantern.classify('spam-filter', { kind: 'text', text: i % 2 ? ham : spam });
        maxDepth = Math.max(maxDepth, lantern.queueDepth);
        return promise;
      }),
    );
    clearInterval(sampler);
    return {
      labels: settled.map((s) => (s.status === 'fulfilled' ? s.value.predictions[0]!.label : null)),
      errors: settled.map((s) => (s.status === 'rejected' ? (s.reason as Error).name : null)),
      maxDepth,
      maxBatch: Math.max(...settled.map((s) => (s.status === 'fulfilled' ? s.value.batchSize : 0))),
      backends: [...new Set(settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value.backend] : [])))],
    };
  }, { count, spam, ham });
}

test('200 concurrent requests: every answer correct, batched, queue within its bound', async ({ page }) => {
  await openModel(page, 'spam-filter');
  const out = await fire(page, 200);
  expect(out.errors.filter(Boolean)).toEqual([]);
  out.labels.forEach((label, i) => expect(label, `request ${i}`).toBe(i % 2 ? 'ham' : 'spam'));
  expect(out.maxDepth).toBeLessThanOrEqual(256);
  expect(out.maxBatch).toBeGreaterThan(1);
  expect(out.backends).toEqual(['wasm']);
});

test('with a queue bound of 50, the excess gets BusyError at once and the rest is correct', async ({ page }) => {
  await openModel(page, 'spam-filter', '&maxQueued=50');
  const out = await fire(page, 200);
  const busy = out.errors.filter((e) => e === 'BusyError').length;
  expect(out.errors.filter((e) => e && e !== 'BusyError')).toEqual([]);
  expect(busy).toBeGreaterThan(0);
  expect(out.maxDepth).toBeLessThanOrEqual(50);
  out.labels.forEach((label, i) => {
    if (label !== null) expect(label, `request ${i}`).toBe(i % 2 ? 'ham' : 'spam');
  });
  expect(out.labels.filter((l) => l !== null).length + busy).toBe(200);
});
