import { expect, test, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openModel, ROOT, withLantern } from './fixtures.ts';

const spam = readFileSync(join(ROOT, 'models/spam-filter/samples/spam.txt'), 'utf8');
const ham = readFileSync(join(ROOT, 'models/spam-filter/samples/ham.txt'), 'utf8');

interface LoadOutcome {
  labels: (string | null)[];
  errors: (string | null)[];
  maxDepth: number;
  maxBatch: number;
  backends: string[];
}

/** Fires `count` requests at once at the real (warm) worker and samples the queue depth meanwhile. */
async function fire(page: Page, count: number): Promise<LoadOutcome> {
  return withLantern(page, async (lantern, { count, spam, ham }) => {
    // Warm (model loaded, descriptor cached), so the burst reaches the scheduler synchronously.
    await lantern.classify('spam-filter', { kind: 'text', text: spam });
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

test('200 concurrent requests: every answer correct, queued behind the busy worker, sent in batches of at most 32', async ({ page }) => {
  await openModel(page, 'spam-filter');
  const out = await fire(page, 200);
  expect(out.errors.filter(Boolean)).toEqual([]);
  out.labels.forEach((label, i) => expect(label, `request ${i}`).toBe(i % 2 ? 'ham' : 'spam'));
  // A backlog formed (requests were not run one by one as they came) and left in bounded batches
  // (maxBatch 32 on this non-low-end profile, src/runtime/field/device-profile.ts).
  expect(out.maxDepth).toBeGreaterThan(32);
  expect(out.maxBatch).toBeGreaterThan(1);
  expect(out.maxBatch).toBeLessThanOrEqual(32);
  expect(out.backends).toEqual(['wasm']);
});

test('with a queue bound of 50, the excess gets BusyError at once and the rest is correct', async ({ page }) => {
  await openModel(page, 'spam-filter', '&maxQueued=50');
  const out = await fire(page, 200);
  const busy = out.errors.filter((e) => e === 'BusyError').length;
  expect(out.errors.filter((e) => e && e !== 'BusyError')).toEqual([]);
  expect(out.maxDepth).toBe(50);
  out.labels.forEach((label, i) => {
    if (label !== null) expect(label, `request ${i}`).toBe(i % 2 ? 'ham' : 'spam');
  });
  // The queue took exactly its bound (plus what left it for the worker while the burst was
  // submitted: at most a batch); everything else was refused.
  const answered = out.labels.filter((l) => l !== null).length;
  expect(answered).toBeGreaterThanOrEqual(50);
  expect(answered).toBeLessThanOrEqual(50 + 32);
  expect(busy).toBeGreaterThanOrEqual(200 - 50 - 32);
});
