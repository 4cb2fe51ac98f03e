import { expect, test } from '@playwright/test';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SCREENSHOTS } from '../scripts/screenshots.ts';
import { logPage, ROOT } from './fixtures.ts';

/**
 * The manifest's screenshots are real captures of the app. `UPDATE_SCREENSHOTS=1 npx playwright
 * test e2e/screenshots.spec.ts` (after `npm run build`) captures them again into
 * public/screenshots/ (then build again); a normal run checks that each one the manifest declares is served, is a
 * PNG of the declared size, and that the screen it shows still renders at that size.
 */
const DIR = join(ROOT, 'public/screenshots');

/** Width and height from a PNG's IHDR chunk. */
function pngSize(bytes: Buffer): { width: number; height: number } {
  expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

for (const shot of SCREENSHOTS) {
  test(`${shot.file}: ${shot.model} at ${shot.width}×${shot.height}, declared in the manifest and served`, async ({ page, request }) => {
    logPage(page);
    await page.setViewportSize({ width: shot.width, height: shot.height });
    await page.goto(`/?model=${shot.model}`);
    await page.getByTestId(`sample-${shot.sample}`).click();
    await expect(page.getByTestId('top-label')).toBeVisible();
    if (process.env.UPDATE_SCREENSHOTS) {
      // The build serves the previous captures until the next `npm run build`: nothing to compare yet.
      mkdirSync(DIR, { recursive: true });
      writeFileSync(join(DIR, shot.file), await page.screenshot());
      return;
    }
    const manifest = await (await request.get((await page.locator('link[rel="manifest"]').getAttribute('href'))!)).json() as { screenshots: { src: string; sizes: string; form_factor: string }[] };
    expect(manifest.screenshots).toContainEqual(expect.objectContaining({ src: `screenshots/${shot.file}`, sizes: `${shot.width}x${shot.height}`, form_factor: shot.formFactor }));
    const served = await request.get(`screenshots/${shot.file}`);
    expect(served.headers()['content-type']).toBe('image/png');
    const bytes = await served.body();
    expect(pngSize(bytes)).toEqual({ width: shot.width, height: shot.height });
    expect(bytes.equals(readFileSync(join(DIR, shot.file)))).toBe(true);
  });
}
