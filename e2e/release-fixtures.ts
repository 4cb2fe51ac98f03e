import { expect, type BrowserContext, type Page } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { trustEntryFor } from '../src/runtime/store/trust.ts';
import { ROOT } from './fixtures.ts';

/** Helpers for e2e tests that publish signed releases at test time (store.spec.ts, gate.spec.ts). */

export const SPAM = readFileSync(join(ROOT, 'models/spam-filter/samples/spam.txt'), 'utf8');
export const HAM = readFileSync(join(ROOT, 'models/spam-filter/samples/ham.txt'), 'utf8');

/** Runs the publisher CLI (scripts/model-cli.ts). */
export function cli(...args: string[]): void {
  execFileSync(join(ROOT, 'node_modules/.bin/tsx'), [join(ROOT, 'scripts/model-cli.ts'), ...args], { cwd: ROOT, stdio: 'pipe' });
}

/** A copy of the built-in spam filter at another version, with renamed labels so answers differ. */
export function variant(work: string, version: string): string {
  const dir = join(work, `src-${version}`);
  cpSync(join(ROOT, 'models/spam-filter'), dir, { recursive: true, filter: (p) => !/\/(recipe|eval)(\/|$)|model\.onnx$/.test(p) });
  const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { id2label: Record<string, string>; lantern: { version: string } };
  config.lantern.version = version;
  config.id2label = { 0: `ham-v${version}`, 1: `spam-v${version}` };
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  return dir;
}

/**
 * Points the app at a test catalog and trusts the test key, through the two deployment files
 * the app reads (no test-only code path in the app).
 */
export async function useTestRegistry(context: BrowserContext, catalogUrl: string, trustEntry: ReturnType<typeof trustEntryFor>): Promise<void> {
  const origin = new URL(catalogUrl).origin;
  await context.route('**/registry-config.json', (route) => route.fulfill({ json: { catalogUrl, allowedOrigins: [origin] } }));
  await context.route('**/trust-store.json', async (route) => {
    const shipped = await (await route.fetch()).json() as { keys: unknown[] };
    await route.fulfill({ json: { keys: [...shipped.keys, trustEntry] } });
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
