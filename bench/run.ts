/**
 * `npm run bench`: one run, one browser (Debian Chromium, headless), printed as Markdown tables
 * and written to bench/results/. Compares Lantern with a raw ORT loop (the floor) and with a
 * transformers.js pipeline (the usual choice). Every number is measured in this run.
 */
import { chromium, type Browser, type Page } from '@playwright/test';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { CHROMIUM, CHROMIUM_ARGS } from '../playwright.config.ts';
import { loadCorpus, mailKey } from '../models/spam-filter/recipe/corpus.mjs';
import { mailToText } from '../models/spam-filter/recipe/mail-text.mjs';
import heldout from '../models/spam-filter/eval/heldout-ids.json' with { type: 'json' };

interface Summary { n: number; p50: number; p95: number; p99: number; mean: number; throughput?: number }
type Engine = 'lantern' | 'tjs';
interface BenchApi {
  setTexts(list: string[]): void;
  setImage(url: string): Promise<void>;
  sequential(engine: Engine, model: string, warmup: number, n: number): Promise<Summary>;
  load(engine: Engine, model: string, concurrency: number, total: number): Promise<Summary>;
  raw(model: string, warmup: number, n: number): Promise<Summary>;
  firstResult(engine: Engine): Promise<number>;
  labels(engine: Engine, count: number): Promise<string[]>;
}

const ROOT = join(import.meta.dirname, '..');
const APP_PORT = 4401;
const BENCH_PORT = 4402;
const SHUFFLENET = existsSync(join(ROOT, '..', 'shared/models/shufflenet-v2-int8/model.onnx'));

function serve(dir: string, port: number, extra: string[] = []): ChildProcess {
  return spawn(process.execPath, [join(ROOT, 'scripts/serve.mjs'), '--dir', join(ROOT, dir), '--port', String(port), ...extra], { stdio: 'ignore' });
}
async function waitFor(url: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await fetch(url).then((r) => r.ok, () => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not come up`);
}

/** The benchmark texts: the first 64 held-out mails (what a triage queue would hold). */
function benchTexts(): string[] {
  const byKey = new Map(loadCorpus().map((m) => [mailKey(m), m]));
  return (heldout as { heldout: { key: string }[] }).heldout.slice(0, 64).map(({ key }) => mailToText(byKey.get(key)!.text));
}

async function benchPage(browser: Browser, query: string): Promise<Page> {
  const page = await browser.newPage();
  page.on('pageerror', (e) => console.error('[page]', e.message));
  await page.goto(`http://127.0.0.1:${BENCH_PORT}/?${query}`);
  await page.waitForSelector('#status[data-ready="true"]');
  await page.evaluate((texts) => (globalThis as unknown as { bench: BenchApi }).bench.setTexts(texts), benchTexts());
  if (SHUFFLENET) await page.evaluate(() => (globalThis as unknown as { bench: BenchApi }).bench.setImage('/cat.jpg'));
  return page;
}

function call<K extends keyof BenchApi>(page: Page, method: K, ...args: Parameters<BenchApi[K]>): Promise<Awaited<ReturnType<BenchApi[K]>>> {
  return page.evaluate(
    ({ method, args }) => {
      const bench = (globalThis as unknown as { bench: Record<string, (...a: unknown[]) => unknown> }).bench;
      return bench[method]!(...args);
    },
    { method, args: args as unknown[] },
  ) as Promise<Awaited<ReturnType<BenchApi[K]>>>;
}

const ms = (x: number) => (x < 1 ? x.toFixed(3) : x < 10 ? x.toFixed(2) : x.toFixed(1));
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;

async function main(): Promise<void> {
  const servers = [serve('dist', APP_PORT), serve('dist-bench', BENCH_PORT)];
  const results: Record<string, unknown> = {};
  const out: string[] = [];
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  try {
    await Promise.all([waitFor(`http://127.0.0.1:${APP_PORT}/`), waitFor(`http://127.0.0.1:${BENCH_PORT}/`)]);
    const version = browser.version();
    const probe = await benchPage(browser, 'engine=probe');
    const env = await probe.evaluate(async () => {
      const gpu = (navigator as unknown as { gpu?: { requestAdapter(): Promise<{ info?: { isFallbackAdapter?: boolean } } | null> } }).gpu;
      const adapter = gpu ? await gpu.requestAdapter() : null;
      return { isolated: crossOriginIsolated, cores: navigator.hardwareConcurrency, hardwareGpu: Boolean(adapter && !adapter.info?.isFallbackAdapter) };
    });
    await probe.close();
    results.machine = { browser: `Chromium ${version} (headless)`, cpu: cpus()[0]?.model, cores: env.cores, crossOriginIsolated: env.isolated, node: process.version };
    out.push(`Machine: ${cpus()[0]?.model ?? 'unknown CPU'}, ${env.cores} cores, Chromium ${version} headless, cross-origin isolated: ${env.isolated}, ORT web 1.30 (WASM, 2 threads unless stated).`, '');

    // 1. Lantern's full path vs the raw ORT floor, batch 1, sequential.
    const floor: string[] = ['| model | raw ORT p50 | raw ORT p95 | Lantern p50 | Lantern p95 | p50 ratio (target ≤1.05×) |', '|---|---:|---:|---:|---:|---:|'];
    const models = [{ id: 'spam-filter', warm: 100, n: 1000 }, ...(SHUFFLENET ? [{ id: 'shufflenet', warm: 20, n: 200 }] : [])];
    for (const m of models) {
      const rawPage = await benchPage(browser, 'threads=2');
      const raw = await call(rawPage, 'raw', m.id, m.warm, m.n);
      await rawPage.close();
      const page = await benchPage(browser, 'threads=2');
      const lantern = await call(page, 'sequential', 'lantern', m.id, m.warm, m.n);
      await page.close();
      results[`floor:${m.id}`] = { raw, lantern };
      floor.push(`| ${m.id} | ${ms(raw.p50)} ms | ${ms(raw.p95)} ms | ${ms(lantern.p50)} ms | ${ms(lantern.p95)} ms | ${ratio(lantern.p50, raw.p50)} |`);
    }
    if (!SHUFFLENET) floor.push('| shufflenet | skipped: ../shared/models/shufflenet-v2-int8 is absent | | | | |');
    out.push('### 1. Batch-1 latency: Lantern (page → scheduler → worker → result) vs a raw `session.run` loop inside a worker', '', ...floor, '');

    // 2. Lantern vs transformers.js pipeline under waves of N concurrent requests — after
    // checking that both give the same answers on the benchmark texts.
    const agreePage = await benchPage(browser, 'threads=2');
    const [tjsLabels, lanternLabels] = [await call(agreePage, 'labels', 'tjs', 64), await call(agreePage, 'labels', 'lantern', 64)];
    await agreePage.close();
    const agree = tjsLabels.filter((label, i) => label === lanternLabels[i]).length;
    results.agreement = { n: 64, agree };
    const load: string[] = ['| N concurrent | engine | throughput (req/s) | p50 | p95 | p99 | throughput ratio | p95 ratio |', '|---:|---|---:|---:|---:|---:|---:|---:|'];
    for (const n of [1, 8, 64]) {
      const total = n === 1 ? 300 : 1024;
      const tPage = await benchPage(browser, 'threads=2');
      const tjs = await call(tPage, 'load', 'tjs', 'spam-filter', n, total);
      await tPage.close();
      const lPage = await benchPage(browser, 'threads=2');
      const lantern = await call(lPage, 'load', 'lantern', 'spam-filter', n, total);
      await lPage.close();
      results[`load:${n}`] = { tjs, lantern };
      load.push(`| ${n} | transformers.js pipeline | ${tjs.throughput!.toFixed(0)} | ${ms(tjs.p50)} | ${ms(tjs.p95)} | ${ms(tjs.p99)} | 1.00× | 1.00× |`);
      load.push(`| ${n} | Lantern | ${lantern.throughput!.toFixed(0)} | ${ms(lantern.p50)} | ${ms(lantern.p95)} | ${ms(lantern.p99)} | ${ratio(lantern.throughput!, tjs.throughput!)} | ${ratio(lantern.p95, tjs.p95)} |`);
    }
    out.push('### 2. Spam filter under load: waves of N simultaneous requests (latencies in ms; target at N=64: throughput ≥2×, p95 no worse)', '', `Both engines give the same top label on ${agree} of 64 benchmark mails.`, '', ...load, '');

    // 3. Start-up: navigation → first result. Lantern through the real app (signed store in
    // IndexedDB); transformers.js with its browser cache. Fresh profile, then reloads.
    const start: string[] = ['| engine | cold (first visit) | warm (reload, model cached), median of 3 | warm ratio (target ≤0.5×) |', '|---|---:|---:|---:|'];
    const starts: Record<string, { cold: number; warm: number[] }> = {};
    for (const engine of ['tjs', 'lantern'] as const) {
      const context = await browser.newContext({ serviceWorkers: 'block' });
      const page = await context.newPage();
      const measure = async (first: boolean) => {
        if (engine === 'lantern') {
          if (first) await page.goto(`http://127.0.0.1:${APP_PORT}/`);
          else await page.reload();
          return page.evaluate(async (text) => {
            const lantern = (globalThis as unknown as { lantern: { classify(id: string, input: unknown): Promise<unknown> } }).lantern;
            await lantern.classify('spam-filter', { kind: 'text', text });
            return performance.now();
          }, 'Win a free prize now');
        }
        if (first) await page.goto(`http://127.0.0.1:${BENCH_PORT}/?threads=2`);
        else await page.reload();
        await page.waitForSelector('#status[data-ready="true"]');
        await page.evaluate(() => (globalThis as unknown as { bench: BenchApi }).bench.setTexts(['Win a free prize now']));
        return call(page, 'firstResult', 'tjs');
      };
      const cold = await measure(true);
      const warm = [await measure(false), await measure(false), await measure(false)].sort((a, b) => a - b);
      starts[engine] = { cold, warm };
      await context.close();
    }
    results.start = starts;
    const median = (xs: number[]) => xs[Math.floor(xs.length / 2)]!;
    start.push(`| transformers.js pipeline | ${ms(starts.tjs!.cold)} ms | ${ms(median(starts.tjs!.warm))} ms | 1.00× |`);
    start.push(`| Lantern (app) | ${ms(starts.lantern!.cold)} ms | ${ms(median(starts.lantern!.warm))} ms | ${ratio(median(starts.lantern!.warm), median(starts.tjs!.warm))} |`);
    out.push('### 3. Start-up: page navigation → first spam-filter result', '', ...start, '');

    // 4. Threads and workers.
    const split: string[] = ['| configuration | spam batch-1 p50 | spam N=64 throughput | shufflenet batch-1 p50 | shufflenet N=16 throughput |', '|---|---:|---:|---:|---:|'];
    for (const cfg of [{ label: '1 worker × 1 thread', q: 'threads=1&workers=1' }, { label: '1 worker × 2 threads', q: 'threads=2&workers=1' }, { label: '2 workers × 1 thread', q: 'threads=1&workers=2' }]) {
      const page = await benchPage(browser, cfg.q);
      const spamSeq = await call(page, 'sequential', 'lantern', 'spam-filter', 50, 300);
      const spamLoad = await call(page, 'load', 'lantern', 'spam-filter', 64, 1024);
      const imgSeq = SHUFFLENET ? await call(page, 'sequential', 'lantern', 'shufflenet', 10, 60) : undefined;
      const imgLoad = SHUFFLENET ? await call(page, 'load', 'lantern', 'shufflenet', 16, 96) : undefined;
      await page.close();
      results[`split:${cfg.q}`] = { spamSeq, spamLoad, imgSeq, imgLoad };
      split.push(`| ${cfg.label} | ${ms(spamSeq.p50)} ms | ${spamLoad.throughput!.toFixed(0)}/s | ${imgSeq ? `${ms(imgSeq.p50)} ms` : 'skipped'} | ${imgLoad ? `${imgLoad.throughput!.toFixed(1)}/s` : 'skipped'} |`);
    }
    out.push('### 4. WASM threads and worker pool (Lantern)', '', ...split, '', env.hardwareGpu ? 'WebGPU: a hardware adapter exists (not benchmarked here).' : 'WebGPU: no hardware adapter on this machine (only SwiftShader with --enable-unsafe-webgpu, 50–100× slower than WASM), so there is no WebGPU row.', '');
  } finally {
    await browser.close();
    for (const s of servers) s.kill();
  }
  const text = out.join('\n');
  console.log(`\n${text}`);
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  const stamp = new Date().toISOString();
  writeFileSync(join(ROOT, 'bench/results/latest.json'), JSON.stringify({ measuredAt: stamp, ...results }, null, 2));
  writeFileSync(join(ROOT, 'bench/results/latest.md'), `Measured ${stamp}\n\n${text}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
