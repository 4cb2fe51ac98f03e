import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { STORE_PORT } from '../playwright.config.ts';
import { parseKeyFile, trustEntryFor, type KeyFile } from '../src/runtime/store/trust.ts';
import { readModelFolder } from '../scripts/model-pack/folder.ts';
import { packRelease, writeRelease } from '../scripts/model-pack/release.ts';
import { logPage, ROOT } from './fixtures.ts';
import { ReleaseServer } from './release-server.ts';

/** Helpers for e2e tests that publish signed releases at test time (store.spec.ts, gate.spec.ts). */

export const SPAM = readFileSync(join(ROOT, 'models/spam-filter/samples/spam.txt'), 'utf8');
export const HAM = readFileSync(join(ROOT, 'models/spam-filter/samples/ham.txt'), 'utf8');

/** Runs the publisher CLI (scripts/model-cli.ts). */
export function cli(...args: string[]): void {
  execFileSync(join(ROOT, 'node_modules/.bin/tsx'), [join(ROOT, 'scripts/model-cli.ts'), ...args], { cwd: ROOT, stdio: 'pipe' });
}

/**
 * A copy of the built-in spam filter at another version, with renamed labels so answers differ
 * (or, with `sameLabels`, the same answers: a retrained model that agrees), optionally under another id.
 */
export function variant(work: string, version: string, options: { id?: string; sameLabels?: boolean } = {}): string {
  const dir = join(work, `src-${options.id ?? 'spam-filter'}-${version}`);
  cpSync(join(ROOT, 'models/spam-filter'), dir, { recursive: true, filter: (p) => !/\/(recipe|eval)(\/|$)|model\.onnx$/.test(p) });
  const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { id2label: Record<string, string>; lantern: { id: string; version: string } };
  config.lantern.version = version;
  if (options.id) config.lantern.id = options.id;
  if (!options.sameLabels) config.id2label = { 0: `ham-v${version}`, 1: `spam-v${version}` };
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  return dir;
}

/**
 * Publishes into `outDir` a variant whose ONNX is cut in half: it verifies (no golden set) but
 * cannot be loaded. Packed through the library, since the CLI's graph check would refuse it:
 * signing does not judge models.
 */
export function publishBroken(work: string, outDir: string, key: KeyFile, version: string, options: { id?: string; sameLabels?: boolean } = {}): Promise<void> {
  return publishEdited(work, outDir, key, version, (graph) => graph.subarray(0, Math.floor(graph.length / 2)), options);
}

/**
 * Publishes into `outDir` a variant exported with its sequence length fixed at 3 tokens, the
 * classic export mistake (no dynamic axis): it loads, but every real mail fails to run.
 */
export function publishFixedLength(work: string, outDir: string, key: KeyFile, version: string): Promise<void> {
  return publishEdited(work, outDir, key, version, (graph) => withFixedSequence(graph, 3));
}

/** Publishes a variant (see `variant`) whose ONNX graph `edit` changed. */
async function publishEdited(work: string, outDir: string, key: KeyFile, version: string, edit: (graph: Buffer) => Buffer, options: { id?: string; sameLabels?: boolean } = {}): Promise<void> {
  const folder = variant(work, version, options);
  const onnx = join(folder, 'onnx/model_quantized.onnx');
  writeFileSync(onnx, edit(readFileSync(onnx)));
  await writeRelease(outDir, await packRelease(await readModelFolder(folder), { keys: [key], chunkSize: 16384 }), { keys: [key] });
}

/**
 * The spam filter's graph with input_ids' `sequence` dimension made the number `length`, edited
 * in the protobuf in place: the dimension's 10 bytes (field 2, dim_param "sequence") become
 * dim_value `length` (field 1) and a 6-byte denotation (field 3), so no enclosing length changes.
 */
function withFixedSequence(graph: Buffer, length: number): Buffer {
  const input = graph.lastIndexOf(Buffer.from('\n\tinput_ids\x12', 'latin1'));
  const dim = graph.indexOf(Buffer.from('\n\n\x12\x08sequence', 'latin1'), input);
  if (input < 0 || dim < 0 || length > 127) throw new Error('not the spam filter\'s graph');
  const edited = Buffer.from(graph);
  Buffer.from(`\n\n\x08${String.fromCharCode(length)}\x1a\x06static`, 'latin1').copy(edited, dim);
  return edited;
}

/**
 * Points the app at a test catalog and trusts the test key, through the two deployment files
 * the app reads (no test-only code path in the app).
 */
export async function useTestRegistry(context: BrowserContext, catalogUrl: string, trustEntry: ReturnType<typeof trustEntryFor>): Promise<void> {
  const origin = new URL(catalogUrl).origin;
  await context.route('**/registry-config.json', (route) => route.fulfill({ json: { catalogUrl, allowedOrigins: [origin] } }));
  await context.route('**/trust-store.json', async (route) => {
    // What a deployer adding a key does: the key, and a higher version (devices refuse a changed file at the same one).
    const shipped = await (await route.fetch()).json() as { version: number; keys: unknown[] };
    await route.fulfill({ json: { version: shipped.version + 1, keys: [...shipped.keys, trustEntry] } });
  });
}

export const versionRow = (page: Page, key: string) => page.getByTestId(`version-${key}`);

export async function openModels(page: Page): Promise<void> {
  await page.goto('/?tab=models');
  await expect(versionRow(page, 'spam-filter@1.0.0')).toHaveAttribute('data-status', 'active');
}

/** Classifies the spam sample in the Classify tab; returns the top label and the version that answered. */
export async function classifySpam(page: Page): Promise<{ label: string | null; version: string }> {
  await page.getByTestId('tab-classify').click();
  await page.getByTestId('model-select').selectOption('spam-filter');
  await page.getByTestId('text-input').fill(SPAM);
  await page.getByTestId('classify-text').click();
  const top = page.getByTestId('top-label');
  await expect(top).toBeVisible();
  return { label: await top.getAttribute('data-label'), version: (await page.getByTestId('model-version').innerText()) };
}

export interface ReleaseSuite {
  work: string;
  key: KeyFile;
  keyPath: string;
  trustEntry: ReturnType<typeof trustEntryFor>;
  /** Serves `<work>/pub` on STORE_PORT. */
  server: ReleaseServer;
  /** `<work>/pub/<catalog>/catalog.json` on the release server. */
  catalogUrl(catalog: string): string;
}

/**
 * Registers the hooks a release spec needs: a temporary folder with a fresh publisher key,
 * `publish` filling `<work>/pub`, a release server for it, reset (and the page logged) before
 * each test, everything removed after the file. Fields are set once `beforeAll` has run.
 */
export function releaseSuite(name: string, publish: (suite: ReleaseSuite) => Promise<void>): ReleaseSuite {
  const suite = { catalogUrl: (catalog: string) => `http://127.0.0.1:${STORE_PORT}/${catalog}/catalog.json` } as ReleaseSuite;
  test.beforeAll(async () => {
    suite.work = mkdtempSync(join(tmpdir(), `lantern-${name}-e2e-`));
    suite.keyPath = join(suite.work, 'key.json');
    cli('keygen', '--out', suite.keyPath, '--name', `e2e ${name} publisher`);
    suite.key = parseKeyFile(JSON.parse(readFileSync(suite.keyPath, 'utf8')));
    suite.trustEntry = trustEntryFor(suite.key, ['spam-filter', 'spam-main', 'spam-small']);
    await publish(suite);
    suite.server = new ReleaseServer(join(suite.work, 'pub'));
    await suite.server.listen(STORE_PORT);
  });
  test.afterAll(async () => {
    await suite.server?.close();
    if (suite.work) rmSync(suite.work, { recursive: true, force: true });
  });
  test.beforeEach(({ page }) => {
    suite.server.reset();
    logPage(page);
  });
  return suite;
}
