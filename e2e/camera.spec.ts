import { expect, test } from '@playwright/test';
import { CHROMIUM, CHROMIUM_ARGS, openModel, withLantern } from './fixtures.ts';

/** Chromium's fake camera (a moving test pattern) stands in for a phone camera. */
test.use({
  launchOptions: { executablePath: CHROMIUM, args: [...CHROMIUM_ARGS, '--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream'] },
  permissions: ['camera'],
});

const count = async (page: import('@playwright/test').Page, attr: 'data-sent' | 'data-dropped') => Number(await page.getByTestId('camera').getAttribute(attr));

test('shutter classifies one frame; continuous mode stays within 2 frames a second and keeps the last result', async ({ page }) => {
  await openModel(page, 'doc-orientation');
  await page.getByTestId('camera-start').click();
  await expect(page.getByTestId('camera')).toHaveAttribute('data-live', 'true');
  await expect.poll(() => page.getByTestId('camera-video').evaluate((v: HTMLVideoElement) => v.videoWidth)).toBeGreaterThan(0);

  await page.getByTestId('shutter').click();
  await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', /^(0|180)$/);
  expect(await count(page, 'data-sent')).toBe(1);

  await page.getByTestId('continuous').click();
  const started = Date.now();
  // Until four frames went out (about 2 s at 2 a second), not for a fixed time.
  await expect.poll(() => count(page, 'data-sent')).toBeGreaterThanOrEqual(5);
  // While running, frames never pile up in the queue: at most the next one waits.
  expect(await withLantern(page, (lantern) => lantern.queueDepth)).toBeLessThanOrEqual(1);
  await page.getByTestId('continuous').click();
  const seconds = (Date.now() - started) / 1000;
  const sent = (await count(page, 'data-sent')) - 1;
  // Bounded rate: never more than 2 a second (plus one for timer phase).
  expect(sent).toBeLessThanOrEqual(Math.ceil(seconds * 2) + 1);
  // Results stay on screen between frames and after stopping.
  await expect(page.getByTestId('result')).toBeVisible();
});

test('a slow classification drops frames instead of queueing them', async ({ page }) => {
  await openModel(page, 'doc-orientation');
  await page.getByTestId('camera-start').click();
  await expect.poll(() => page.getByTestId('camera-video').evaluate((v: HTMLVideoElement) => v.videoWidth)).toBeGreaterThan(0);
  // Hold inference (as a slow phone would): the scheduler keeps the first frame waiting.
  await withLantern(page, (lantern) => lantern.pause());
  await page.getByTestId('continuous').click();
  await expect.poll(() => count(page, 'data-dropped'), { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
  expect(await count(page, 'data-sent')).toBe(1);
  expect(await withLantern(page, (lantern) => lantern.queueDepth)).toBe(1);
  await withLantern(page, (lantern) => lantern.resume());
  await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', /^(0|180)$/);
});

test('the camera stops when the page is hidden', async ({ page }) => {
  await openModel(page, 'doc-orientation');
  await page.getByTestId('camera-start').click();
  await expect(page.getByTestId('camera')).toHaveAttribute('data-live', 'true');
  const track = () => page.evaluate(() => {
    const video = document.querySelector('video');
    return (video?.srcObject as MediaStream | null)?.getVideoTracks()[0]?.readyState ?? 'none';
  });
  expect(await track()).toBe('live');
  // The track outlives the <video> it played in: keep a handle on it to see that it was stopped.
  const lastTrack = await page.evaluateHandle(() => (document.querySelector('video')!.srcObject as MediaStream).getVideoTracks()[0]!);
  await page.evaluate(() => {
    Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
    document.dispatchEvent(new Event('visibilitychange'));
  });
  await expect(page.getByTestId('camera')).toHaveAttribute('data-live', 'false');
  // The view says so first; the track is stopped as the stream is released.
  await expect.poll(() => lastTrack.evaluate((track) => track.readyState)).toBe('ended');
});
