import { expect, test, type Page } from '@playwright/test';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadCorpus, mailKey } from '../models/spam-filter/recipe/corpus.mjs';
import { mailToText } from '../models/spam-filter/recipe/mail-text.mjs';
import { openModel, ROOT, withLantern } from './fixtures.ts';

/**
 * Held-out accuracy measured in the browser, through the app's full path (scheduler, worker,
 * preprocessing, ORT WASM), compared with the offline figure each model's recipe measured
 * with onnxruntime-node (models/<id>/eval/expected.json). Prints the table for the README.
 */
interface Expected { n: number; fp32: number; int8: number }
const TOLERANCE_POINTS = 0.5;
const rows: { model: string; n: number; offlineFp32: number; offlineInt8: number; browser: number; delta: number }[] = [];

const readJson = <T>(path: string): T => JSON.parse(readFileSync(join(ROOT, path), 'utf8')) as T;

/** Classifies in chunks (the queue is bounded) and returns the top label of each item. */
async function classifyAll(page: Page, modelId: string, count: number): Promise<string[]> {
  return withLantern(page, async (lantern, { modelId, count }) => {
    // The input maker each test installs in the page (see the tests below).
    const make = globalThis.evalInput!;
    const labels: string[] = [];
    for (let start = 0; start < count; start += 128) {
      const chunk = await Promise.all(
        Array.from({ length: Math.min(128, count - start) }, async (_, j) => {
          const input = await make(start + j);
          const result = await lantern.classify(modelId, input, { priority: 'background' });
          return result.predictions[0]!.label;
        }),
      );
      labels.push(...chunk);
    }
    return labels;
  }, { modelId, count });
}

function record(model: string, expected: Expected, predicted: string[], truth: string[]) {
  const correct = predicted.filter((p, i) => p === truth[i]).length;
  const browser = correct / truth.length;
  const delta = (browser - expected.int8) * 100;
  rows.push({ model, n: truth.length, offlineFp32: expected.fp32, offlineInt8: expected.int8, browser, delta });
  expect(truth.length).toBe(expected.n);
  expect(Math.abs(delta), `${model}: browser ${browser} vs offline int8 ${expected.int8}`).toBeLessThanOrEqual(TOLERANCE_POINTS);
}

/** Serves a model's evaluation sprite to the page (eval sets are not shipped with the app). */
async function serveEval(page: Page, model: string, file: string) {
  await page.route(`**/__eval__/${model}/${file}`, (route) => route.fulfill({ body: readFileSync(join(ROOT, 'models', model, 'eval', file)), contentType: 'image/png' }));
}

test.describe.configure({ timeout: 600_000 });

test('spam-filter: held-out mails', async ({ page }) => {
  const expected = readJson<Expected>('models/spam-filter/eval/expected.json');
  const { heldout } = readJson<{ heldout: { key: string; label: number }[] }>('models/spam-filter/eval/heldout-ids.json');
  const byKey = new Map(loadCorpus().map((m) => [mailKey(m), m]));
  const texts = heldout.map(({ key }) => mailToText(byKey.get(key)!.text));
  const truth = heldout.map(({ label }) => (label === 1 ? 'spam' : 'ham'));
  await openModel(page, 'spam-filter');
  await page.evaluate((texts) => {
    globalThis.evalInput = async (i: number) => texts[i]!;
  }, texts);
  record('spam-filter', expected, await classifyAll(page, 'spam-filter', texts.length), truth);
});

test('doc-orientation: rendered lines, upright and rotated', async ({ page }) => {
  const expected = readJson<Expected>('models/doc-orientation/eval/expected.json');
  const meta = readJson<{ lines: { x: number; y: number; w: number; h: number }[] }>('models/doc-orientation/eval/lines.json');
  await serveEval(page, 'doc-orientation', 'lines.png');
  await openModel(page, 'doc-orientation');
  await page.evaluate(async (lines) => {
    const sprite = await createImageBitmap(await (await fetch('/__eval__/doc-orientation/lines.png')).blob());
    globalThis.evalInput = async (i: number) => {
      const r = lines[Math.floor(i / 2)]!;
      const canvas = new OffscreenCanvas(r.w, r.h);
      const ctx = canvas.getContext('2d')!;
      if (i % 2 === 1) {
        // 180° rotation is exact: the recipe reverses the pixel order the same way.
        ctx.translate(r.w, r.h);
        ctx.rotate(Math.PI);
      }
      ctx.drawImage(sprite, r.x, r.y, r.w, r.h, 0, 0, r.w, r.h);
      return { kind: 'image', image: ctx.getImageData(0, 0, r.w, r.h) };
    };
  }, meta.lines);
  const truth = meta.lines.flatMap(() => ['0', '180']);
  record('doc-orientation', expected, await classifyAll(page, 'doc-orientation', truth.length), truth);
});

test('fashion-mnist: first 1000 test images', async ({ page }) => {
  const expected = readJson<Expected>('models/fashion-mnist/eval/expected.json');
  const meta = readJson<{ cols: number; tile: { width: number; height: number }; labels: number[]; label_names: string[] }>('models/fashion-mnist/eval/test-1000.json');
  await serveEval(page, 'fashion-mnist', 'test-1000.png');
  await openModel(page, 'fashion-mnist');
  await page.evaluate(async ({ cols, tile }) => {
    const sprite = await createImageBitmap(await (await fetch('/__eval__/fashion-mnist/test-1000.png')).blob());
    globalThis.evalInput = async (i: number) => {
      const canvas = new OffscreenCanvas(tile.width, tile.height);
      const ctx = canvas.getContext('2d')!;
      ctx.drawImage(sprite, (i % cols) * tile.width, Math.floor(i / cols) * tile.height, tile.width, tile.height, 0, 0, tile.width, tile.height);
      return { kind: 'image', image: ctx.getImageData(0, 0, tile.width, tile.height) };
    };
  }, meta);
  const truth = meta.labels.map((l) => meta.label_names[l]!);
  record('fashion-mnist', expected, await classifyAll(page, 'fashion-mnist', truth.length), truth);
});

test.afterAll(() => {
  const pct = (x: number) => `${(x * 100).toFixed(2)}%`;
  const table = [
    '| model | N | offline fp32 | offline int8 | browser (int8, WASM) | Δ points |',
    '|---|---:|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.model} | ${r.n} | ${pct(r.offlineFp32)} | ${pct(r.offlineInt8)} | ${pct(r.browser)} | ${r.delta >= 0 ? '+' : ''}${r.delta.toFixed(2)} |`),
  ].join('\n');
  console.log(`\nAccuracy (browser vs offline, tolerance ±${TOLERANCE_POINTS} points)\n${table}\n`);
  if (rows.length === 3) {
    mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
    writeFileSync(join(ROOT, 'bench/results/accuracy.json'), JSON.stringify({ measuredAt: new Date().toISOString(), rows }, null, 2));
  }
});
