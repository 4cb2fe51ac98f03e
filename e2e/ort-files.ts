import type { BrowserContext, Page } from '@playwright/test';

/** Helpers of the ORT build specs (ort-build*.spec.ts). */

/** Paths of every request the context makes (page, workers, ORT's threads). */
export function recordRequests(context: BrowserContext): string[] {
  const paths: string[] = [];
  context.on('request', (request) => paths.push(new URL(request.url()).pathname));
  return paths;
}

export const count = (paths: string[], pattern: RegExp) => paths.filter((p) => pattern.test(p)).length;

/** Paths in the cache the service worker serves ORT from, glue (.mjs) before wasm. */
export async function ortCache(page: Page): Promise<string[]> {
  const paths = await page.evaluate(async () => {
    const cache = await caches.open('lantern-ort');
    return (await cache.keys()).map((r) => new URL(r.url).pathname);
  });
  return paths.sort((a, b) => Number(a.endsWith('.wasm')) - Number(b.endsWith('.wasm')) || a.localeCompare(b));
}
