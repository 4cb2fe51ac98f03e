import { expect, test } from '@playwright/test';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { corruptPng, encodePng, installCanvasPixels, installExifTagged, openModel, requireShared, ROOT, SAMPLES, splitWords, withLantern, type CanvasPixels, type ExifTagged } from './fixtures.ts';


test.describe('built-in samples on the default backend', () => {
  for (const s of SAMPLES) {
    test(`${s.model}: ${s.sample} → ${s.label} (WASM)`, async ({ page }) => {
      await openModel(page, s.model);
      await page.getByTestId(`sample-${s.sample}`).click();
      await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', s.label);
      await expect(page.getByTestId('backend')).toHaveAttribute('data-backend', 'wasm');
      await expect(page.getByTestId('model-version')).toContainText(s.model);
      await expect(page.getByTestId('threads')).toHaveAttribute('data-isolated', 'true');
    });
  }
});

test('forcing WebGPU without an adapter falls back to WASM and reports it', async ({ page }) => {
  await openModel(page, 'spam-filter', '&backend=webgpu');
  await page.getByTestId('sample-ham').click();
  await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', 'ham');
  await expect(page.getByTestId('backend')).toHaveAttribute('data-backend', 'wasm');
  await expect(page.getByTestId('backend-reason')).toContainText('WebGPU was requested but is unavailable');
});

test.describe('bad input gets a clear message and breaks nothing', () => {
  const upright = readFileSync(join(ROOT, 'models/doc-orientation/samples/upright.png'));

  async function pick(page: import('@playwright/test').Page, file: { name: string; mimeType: string; buffer: Buffer }) {
    await page.getByTestId('image-file').setInputFiles(file);
  }

  /** After any error, a good image must still classify: nothing broke. */
  async function stillWorks(page: import('@playwright/test').Page) {
    await pick(page, { name: 'upright.png', mimeType: 'image/png', buffer: upright });
    await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', '0');
  }

  test('a non-image file', async ({ page }) => {
    await openModel(page, 'doc-orientation');
    await pick(page, { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not an image') });
    await expect(page.getByTestId('error')).toHaveAttribute('data-code', 'INPUT');
    await expect(page.getByTestId('error-text')).toHaveText('That file is not an image (its type is text/plain).');
    await stillWorks(page);
  });

  test('an HTML page pretending to be a PNG', async ({ page }) => {
    await openModel(page, 'doc-orientation');
    await pick(page, { name: 'photo.png', mimeType: 'image/png', buffer: Buffer.from('<!doctype html><title>Login</title>') });
    await expect(page.getByTestId('error')).toHaveAttribute('data-code', 'INPUT');
    await expect(page.getByTestId('error-text')).toContainText('not an image Lantern can read');
    await stillWorks(page);
  });

  test('a corrupt image', async ({ page }) => {
    await openModel(page, 'doc-orientation');
    await pick(page, { name: 'corrupt.png', mimeType: 'image/png', buffer: corruptPng() });
    await expect(page.getByTestId('error')).toHaveAttribute('data-code', 'INPUT');
    await expect(page.getByTestId('error-text')).toHaveText('The image could not be decoded: the file is damaged or incomplete.');
    await stillWorks(page);
  });

  test('a truncated image', async ({ page }) => {
    await openModel(page, 'doc-orientation');
    await pick(page, { name: 'cut.png', mimeType: 'image/png', buffer: upright.subarray(0, 60) });
    await expect(page.getByTestId('error')).toHaveAttribute('data-code', 'INPUT');
    await stillWorks(page);
  });

  test('a 0-byte image', async ({ page }) => {
    await openModel(page, 'doc-orientation');
    await pick(page, { name: 'empty.png', mimeType: 'image/png', buffer: Buffer.alloc(0) });
    await expect(page.getByTestId('error-text')).toHaveText('The file is empty.');
    await stillWorks(page);
  });

  test('an 8000×8000 image is downscaled, not a crash', async ({ page }) => {
    await openModel(page, 'fashion-mnist');
    const big = encodePng(8000, 8000, (x, y) => ((x >> 9) + (y >> 9)) % 2 ? [255, 255, 255] : [0, 0, 0]);
    await pick(page, { name: 'big.png', mimeType: 'image/png', buffer: big });
    await expect(page.getByTestId('notes')).toContainText('Downscaled from 8000×8000');
    await expect(page.getByTestId('top-label')).toBeVisible();
  });

  test('an image bomb (tiny file claiming 60000×60000) is refused before decoding', async ({ page }) => {
    await openModel(page, 'doc-orientation');
    const bomb = Buffer.from(encodePng(1, 1, () => [0, 0, 0]));
    bomb.writeUInt32BE(60000, 16);
    bomb.writeUInt32BE(60000, 20);
    await pick(page, { name: 'bomb.png', mimeType: 'image/png', buffer: bomb });
    await expect(page.getByTestId('error-text')).toContainText('The image is too large (60,000×60,000 pixels');
    await stillWorks(page);
  });

  test('an image bomb in disguise (a GIF with a 1×1 screen and a 20000×20000 first frame) is refused before decoding', async ({ page }) => {
    await openModel(page, 'doc-orientation');
    // Chromium grows a GIF to its first frame's bounds: measuring the screen alone would let it decode 400 MP.
    const le = (n: number) => [n & 0xff, n >> 8];
    const bomb = Buffer.from([
      ...Buffer.from('GIF89a'), ...le(1), ...le(1), 0x80, 0, 0, 0, 0, 0, 255, 255, 255,
      0x21, 0xf9, 4, 0, 0, 0, 0, 0,
      0x2c, ...[0, 0, 20_000, 20_000].flatMap(le), 0, 2, 1, 0x44, 0, 0x3b,
    ]);
    await pick(page, { name: 'bomb.gif', mimeType: 'image/gif', buffer: bomb });
    await expect(page.getByTestId('error-text')).toContainText('The image is too large (20,000×20,000 pixels');
    await stillWorks(page);
  });

  test('empty text', async ({ page }) => {
    await openModel(page, 'spam-filter');
    await page.getByTestId('text-input').fill('   ');
    await page.getByTestId('classify-text').click();
    await expect(page.getByTestId('error')).toHaveAttribute('data-code', 'INPUT');
    await expect(page.getByTestId('error-text')).toHaveText('The text is empty: type or paste something to classify.');
  });

  test('a 1 MB text is truncated to the model length, and says so', async ({ page }) => {
    await openModel(page, 'spam-filter');
    const huge = 'Dear team, the quarterly report is attached for review. '.repeat(Math.ceil(1_048_576 / 56)).slice(0, 1_048_576);
    // fill() with 1 MB is slow; set the value through the UI's input event instead.
    await page.getByTestId('text-input').evaluate((el, value) => {
      (el as HTMLTextAreaElement).value = value;
      el.dispatchEvent(new Event('input', { bubbles: true }));
    }, huge);
    await page.getByTestId('classify-text').click();
    await expect(page.getByTestId('notes')).toContainText('truncated to the model\'s 256 tokens');
    await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', 'ham');
  });

  test('in the Hindi UI, errors, notes and the backend reason are Hindi: no English sentence', async ({ page }) => {
    await page.addInitScript(() => localStorage.setItem('lantern.language', 'hi'));
    await openModel(page, 'doc-orientation');
    await pick(page, { name: 'corrupt.png', mimeType: 'image/png', buffer: corruptPng() });
    await expect(page.getByTestId('error')).toHaveAttribute('data-code', 'INPUT');
    await expect(page.getByTestId('error-text')).toHaveText('चित्र पढ़ा नहीं जा सका: फ़ाइल खराब या अधूरी है।');
    await pick(page, { name: 'upright.png', mimeType: 'image/png', buffer: upright });
    await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', '0');
    // The sentence is Hindi; only names (WebGPU, WASM) stay in Latin letters.
    const reason = await page.getByTestId('backend-reason').textContent();
    expect(reason).toMatch(/[\u0900-\u097F]/);
    expect(reason?.replace(/WebGPU|WASM/g, '')).not.toMatch(/[A-Za-z]/);
  });
});

test.describe('classify like a field user: thumbnails, several files, paste, share, unsure, AVIF', () => {
  const upright = readFileSync(join(ROOT, 'models/doc-orientation/samples/upright.png'));
  const upsideDown = readFileSync(join(ROOT, 'models/doc-orientation/samples/upside-down.png'));

  test('one image: its thumbnail beside the answer; the result copies to the clipboard (no Web Share here)', async ({ page, context }) => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await openModel(page, 'doc-orientation');
    await page.getByTestId('image-file').setInputFiles({ name: 'upright.png', mimeType: 'image/png', buffer: upright });
    await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', '0');
    const thumbnail = page.getByTestId('thumbnail');
    await expect(thumbnail).toBeVisible();
    // The browser really decoded the blob: URL it shows (a broken image has no natural size).
    // Visible comes first; the decode may finish a moment later.
    await expect.poll(() => thumbnail.evaluate((img: HTMLImageElement) => [img.naturalWidth, img.naturalHeight])).toEqual([542, 48]);
    await expect(page.getByTestId('result')).toHaveAttribute('data-unsure', 'false');
    test.skip(await page.evaluate(() => typeof navigator.share === 'function'), 'this Chromium has Web Share: covered by the next test');
    await page.getByTestId('share').click();
    await expect(page.getByTestId('share-status')).toHaveText('Copied to the clipboard.');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toMatch(/^Upright \(0°\) \d+(\.\d)?% · doc-orientation v\d+\.\d+\.\d+$/);
  });

  for (const width of [1280, 320]) {
    test(`${width} px: the thumbnail leaves every score bar the same width, and covers none`, async ({ page }) => {
      await page.setViewportSize({ width, height: 800 });
      await openModel(page, 'doc-orientation');
      await page.getByTestId('image-file').setInputFiles({ name: 'upright.png', mimeType: 'image/png', buffer: upright });
      await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', '0');
      const thumbnail = page.getByTestId('thumbnail');
      await expect.poll(() => thumbnail.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(542);
      const bars = await page.locator('.predictions meter').evaluateAll((meters) => meters.map((m) => {
        const { left, right } = m.getBoundingClientRect();
        return `${Math.round(left)}–${Math.round(right)}`;
      }));
      expect(bars).toHaveLength(2);
      expect(new Set(bars).size, bars.join(', ')).toBe(1);
      const t = (await thumbnail.boundingBox())!;
      const covered = await page.locator('.predictions li').evaluateAll((rows, t) => rows.filter((row) => {
        const r = row.getBoundingClientRect();
        return r.left < t.x + t.width && t.x < r.right && r.top < t.y + t.height && t.y < r.bottom;
      }).map((row) => row.textContent), t);
      expect(covered).toEqual([]);
    });
  }

  test('Web Share, where the browser has it, gets the result text', async ({ page }) => {
    await page.addInitScript(() => {
      const shared: { title: string; text: string }[] = [];
      globalThis.shared = shared;
      Object.defineProperty(Navigator.prototype, 'share', { value: async (data: ShareData) => { shared.push({ title: data.title ?? '', text: data.text ?? '' }); } });
    });
    await openModel(page, 'spam-filter');
    await page.getByTestId('sample-ham').click();
    await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', 'ham');
    await page.getByTestId('share').click();
    await expect(page.getByTestId('share-status')).toHaveText('Shared.');
    const shared = await page.evaluate(() => globalThis.shared);
    expect(shared).toEqual([{ title: 'Result', text: expect.stringMatching(/^Ham \d+(\.\d)?% · spam-filter v/i) }]);
  });

  test('several files at once: a table, each file with its own status and answer', async ({ page }) => {
    await openModel(page, 'doc-orientation');
    await page.getByTestId('image-file').setInputFiles([
      { name: 'upright.png', mimeType: 'image/png', buffer: upright },
      { name: 'upside-down.png', mimeType: 'image/png', buffer: upsideDown },
      { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not an image') },
    ]);
    const batch = page.getByTestId('batch');
    await expect(batch.getByTestId('batch-row-0')).toHaveAttribute('data-label', '0');
    await expect(batch.getByTestId('batch-row-1')).toHaveAttribute('data-label', '180');
    await expect(batch.getByTestId('batch-row-2')).toHaveAttribute('data-status', 'failed');
    await expect(batch.getByTestId('batch-row-2')).toHaveAttribute('data-code', 'INPUT');
    await expect(batch.getByTestId('batch-row-2')).toContainText('That file is not an image (its type is text/plain).');
    await expect(batch.getByTestId('batch-row-0')).toContainText('upright.png');
    await expect(batch).toContainText('3 files');
    // Thumbnails for the images; none (not a broken one) for the text file.
    await expect(batch.locator('img')).toHaveCount(2);
    await expect(batch.getByTestId('batch-row-2').locator('img')).toHaveCount(0);
  });

  test('320 px: every cell of the files table fits its box, a refusal wrapping onto lines of its own', async ({ page }) => {
    await page.setViewportSize({ width: 320, height: 800 });
    await openModel(page, 'doc-orientation');
    await page.getByTestId('image-file').setInputFiles([
      { name: 'scan-0001-invoice-front-page.png', mimeType: 'image/png', buffer: upright },
      { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not an image') },
    ]);
    const batch = page.getByTestId('batch');
    await expect(batch.getByTestId('batch-row-0')).toHaveAttribute('data-label', '0');
    await expect(batch.getByTestId('batch-row-1')).toHaveAttribute('data-status', 'failed');
    const tooWide = await batch.evaluate((table) => {
      const box = table.closest('.table-scroll')!.clientWidth;
      return [...table.querySelectorAll('td, th')].filter((cell) => cell.getBoundingClientRect().width > box).map((cell) => cell.textContent);
    });
    expect(tooWide).toEqual([]);
    expect(await splitWords(page, 'table.batch td')).toEqual([]);
  });

  test('paste: an image onto an image model, text onto a text model', async ({ page }) => {
    await openModel(page, 'doc-orientation');
    await page.evaluate(async (bytes) => {
      const data = new DataTransfer();
      data.items.add(new File([new Uint8Array(bytes)], 'pasted.png', { type: 'image/png' }));
      document.body.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true }));
    }, [...upsideDown]);
    await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', '180');
    await expect(page.getByTestId('thumbnail')).toBeVisible();

    await openModel(page, 'spam-filter');
    await page.evaluate(() => {
      const data = new DataTransfer();
      data.setData('text/plain', 'Congratulations! You won a FREE cruise, call now to claim your prize');
      document.body.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true }));
    });
    await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', 'spam');
    await expect(page.getByTestId('text-input')).toHaveValue(/FREE cruise/);
  });

  test('AVIF is decoded (Chromium has AVIF); HEIC is refused by name', async ({ page }) => {
    await openModel(page, 'doc-orientation');
    await page.getByTestId('image-file').setInputFiles({ name: 'upright.avif', mimeType: 'image/avif', buffer: readFileSync(join(ROOT, 'e2e/files/upright.avif')) });
    await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', '0');
    // A HEIC header (ftyp heic + ispe): refused with what to do, not as "not an image".
    const heic = Buffer.concat([Buffer.from('00000018667479706865696300000000' + '6d69663168656963', 'hex'), Buffer.from('000000146973706500000000000000fc000000bd', 'hex')]);
    heic.writeUInt32BE(24, 0);
    await page.getByTestId('image-file').setInputFiles({ name: 'IMG_0001.HEIC', mimeType: 'image/heic', buffer: heic });
    await expect(page.getByTestId('error')).toHaveAttribute('data-code', 'INPUT');
    await expect(page.getByTestId('error-text')).toContainText('HEIC/HEIF photos cannot be read here');
  });

  test('an unsure answer says so (a cat on the clothing model; the model default threshold is 50%)', async ({ page }) => {
    const cat = readFileSync(requireShared('images/cat.jpg'));
    await openModel(page, 'fashion-mnist');
    await page.getByTestId('image-file').setInputFiles({ name: 'cat.jpg', mimeType: 'image/jpeg', buffer: cat });
    await expect(page.getByTestId('result')).toHaveAttribute('data-unsure', 'true');
    await expect(page.getByTestId('unsure')).toHaveText('Unsure: the top answer scored below 50%. Check it yourself.');
    // A clear sample is not marked.
    await page.getByTestId(/^sample-/).first().click();
    await expect(page.getByTestId('result')).toHaveAttribute('data-unsure', 'false');
    await expect(page.getByTestId('unsure')).toHaveCount(0);
  });
});

test('a transparent image is read on its own, not over the image the worker read before it', async ({ page }) => {
  await openModel(page, 'fashion-mnist');
  // The worker reuses one canvas for every image: same-size images must not show through.
  const answers = await withLantern(page, async (lantern) => {
    const png = async (fill?: string) => {
      const canvas = new OffscreenCanvas(64, 64);
      const ctx = canvas.getContext('2d')!;
      if (fill) {
        ctx.fillStyle = fill;
        ctx.fillRect(0, 0, 64, 64);
      }
      return canvas.convertToBlob({ type: 'image/png' });
    };
    const answer = async (image: Blob) => (await lantern.classify('fashion-mnist', { kind: 'image', image })).predictions.map((p) => `${p.label} ${p.score.toFixed(5)}`).join(', ');
    const black = await answer(await png('#000'));
    const white = await answer(await png('#fff'));
    return { black, white, transparentAfterWhite: await answer(await png()) };
  });
  expect(answers.white).not.toEqual(answers.black);
  // Fully transparent pixels carry no colour: the model sees black.
  expect(answers.transparentAfterWhite).toEqual(answers.black);
});

test('an image gives the model the same pixels on either read path: copied out of its frame, or through the canvas', async ({ page }) => {
  await openModel(page, 'doc-orientation');
  await installExifTagged(page);
  await installCanvasPixels(page);
  const out = await withLantern(page, async (lantern, url) => {
    const { exifTagged: tagged, canvasPixels } = globalThis as unknown as { exifTagged: ExifTagged; canvasPixels: CanvasPixels };
    const scores = async (image: Blob | ImageData) => (await lantern.classify('doc-orientation', { kind: 'image', image })).predictions.map((p) => `${p.label} ${p.score.toFixed(6)}`).join(', ');
    const sample = await createImageBitmap(await (await fetch(url)).blob());
    const canvas = new OffscreenCanvas(sample.width, sample.height);
    const ctx = canvas.getContext('2d')!;
    ctx.drawImage(sample, 0, 0);
    const jpeg = await canvas.convertToBlob({ type: 'image/jpeg', quality: 0.9 });
    const jpegBytes = new Uint8Array(await jpeg.arrayBuffer());
    // A PNG stored with an alpha channel that is opaque everywhere: Chromium keeps its bitmap as
    // one with alpha, so the worker must look at the pixels to know it may copy them.
    const opaquePng = await canvas.convertToBlob({ type: 'image/png' });
    const enlargedPng = async (times: number) => {
      const large = new OffscreenCanvas(sample.width * times, sample.height * times);
      large.getContext('2d')!.drawImage(sample, 0, 0, large.width, large.height);
      return large.convertToBlob({ type: 'image/png' });
    };
    // 5× larger (2710×240): longer than 2048 px but within the working size of 2048² pixels, so
    // decoded whole, like a phone's tall screenshot.
    const longPng = await enlargedPng(5);
    // 15× larger (8130×720): above the working size, decoded and resized to 6882×609 first.
    const largePng = await enlargedPng(15);
    // Half-transparent with a coloured wash: premultiplied storage changes these pixels' values.
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    ctx.globalAlpha = 0.55;
    ctx.drawImage(sample, 0, 0);
    ctx.fillStyle = 'rgba(40, 120, 220, 0.3)';
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    const translucent = await canvas.convertToBlob({ type: 'image/png' });
    const answers: Record<string, [string, string]> = {};
    for (const [name, image] of Object.entries({ jpeg, upsideDown: tagged(jpegBytes, 3), quarterTurn: tagged(jpegBytes, 6), opaquePng, longPng, translucent })) {
      answers[name] = [await scores(image), await scores(await canvasPixels(image))];
    }
    answers.largePng = [await scores(largePng), await scores(await canvasPixels(largePng, { resizeWidth: 6882, resizeHeight: 609 }))];
    return answers;
  }, '/models/doc-orientation/1.0.0/samples/upright.png');
  for (const [worker, canvas] of Object.values(out)) expect(worker).toEqual(canvas);
  // Seven different inputs (the comparisons above are not vacuous).
  expect(new Set(Object.values(out).map(([worker]) => worker)).size).toBe(7);
});

test('a JPEG of any chroma layout, progressive or not, gives the model the pixels the browser\'s own decode gives', async ({ page }) => {
  // Made by workers/fixtures/make-jpegs.c: 4:4:4, 4:2:2 and 4:2:0 (converted by workers/jpeg-ycbcr.ts),
  // 4:4:0, 4:1:1 and grayscale (decoded to RGB by Chromium itself), 1×1 to 101×67, no ICC profile.
  const dir = join(ROOT, 'e2e/files/jpeg');
  const files = Object.fromEntries(readdirSync(dir).map((name) => [name, readFileSync(join(dir, name)).toString('base64')]));
  await openModel(page, 'doc-orientation');
  await installCanvasPixels(page);
  const out = await withLantern(page, async (lantern, files) => {
    const { canvasPixels } = globalThis as unknown as { canvasPixels: CanvasPixels };
    const scores = async (image: Blob | ImageData) => (await lantern.classify('doc-orientation', { kind: 'image', image })).predictions.map((p) => `${p.label} ${p.score.toFixed(6)}`).join(', ');
    const jpegs = Object.fromEntries(Object.entries(files).map(([name, base64]) => [name, new Blob([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], { type: 'image/jpeg' })]));
    // The browser's own JPEGs embed an ICC profile: sRGB from a plain canvas, Display P3 from a P3 one.
    const photo = await createImageBitmap(jpegs['420-101x67-restarts.jpg']!, { resizeWidth: 150, resizeHeight: 100 });
    for (const colorSpace of ['srgb', 'display-p3'] as const) {
      const canvas = new OffscreenCanvas(photo.width, photo.height);
      canvas.getContext('2d', { colorSpace })!.drawImage(photo, 0, 0);
      jpegs[`canvas-${colorSpace}.jpg`] = await canvas.convertToBlob({ type: 'image/jpeg', quality: 0.9 });
    }
    const answers: Record<string, [string, string]> = {};
    for (const [name, jpeg] of Object.entries(jpegs)) answers[name] = [await scores(jpeg), await scores(await canvasPixels(jpeg))];
    return answers;
  }, files);
  expect(Object.keys(out)).toHaveLength(56);
  for (const [name, [worker, canvas]] of Object.entries(out)) expect(worker, name).toEqual(canvas);
  // Every file's answer is its own (the comparisons above are not vacuous).
  expect(new Set(Object.values(out).map(([worker]) => worker)).size).toBe(56);
});

test('a JPEG longer than 2048 px is decoded by its own decoder at a reduced scale: the sample\'s answer, EXIF orientation applied', async ({ page }) => {
  await openModel(page, 'doc-orientation');
  await installExifTagged(page);
  const out = await withLantern(page, async (lantern, urls) => {
    const tagged = (globalThis as unknown as { exifTagged: ExifTagged }).exifTagged;
    const answer = async (image: Blob) => {
      const { predictions, notes } = await lantern.classify('doc-orientation', { kind: 'image', image });
      const downscaled = notes.map((n) => (n.kind === 'downscaled' ? `${n.width}×${n.height} → ${n.toWidth}×${n.toHeight}` : '')).join('');
      return `${predictions[0]!.label} ${downscaled}`;
    };
    /** The sample drawn 5× larger (2710×240 and 2350×220: longer than 2048 px), as a JPEG. */
    const enlarged = async (url: string) => {
      const sample = await createImageBitmap(await (await fetch(url)).blob());
      const canvas = new OffscreenCanvas(sample.width * 5, sample.height * 5);
      canvas.getContext('2d')!.drawImage(sample, 0, 0, canvas.width, canvas.height);
      return new Uint8Array(await (await canvas.convertToBlob({ type: 'image/jpeg', quality: 0.92 })).arrayBuffer());
    };
    const upright = await enlarged(urls.upright);
    const upsideDown = await enlarged(urls.upsideDown);
    return {
      upright: await answer(new Blob([upright], { type: 'image/jpeg' })),
      upsideDown: await answer(new Blob([upsideDown], { type: 'image/jpeg' })),
      turnedByExif: await answer(tagged(upright, 3)),
      quarterTurn: await answer(tagged(upright, 6)),
    };
  }, { upright: '/models/doc-orientation/1.0.0/samples/upright.png', upsideDown: '/models/doc-orientation/1.0.0/samples/upside-down.png' });
  // The model keeps a line 48 px high: twice that is 96 of 240 px, so 4/8 (1355×120), not the
  // 2048 px edge. Turned a quarter by EXIF, the image is shown 240 px wide and 2710 high:
  // the model keeps 5×48 of it, so 1/8 is enough, and the note gives the turned size.
  expect(out).toEqual({
    upright: '0 2710×240 → 1355×120',
    upsideDown: '180 2350×220 → 1175×110',
    turnedByExif: '180 2710×240 → 1355×120',
    quarterTurn: expect.stringMatching(/^(0|180) 240×2710 → 30×339$/),
  });
});

test('an image given as bytes (ArrayBuffer) answers as the same file does, and a bomb in bytes is refused the same way', async ({ page }) => {
  await openModel(page, 'doc-orientation');
  const out = await withLantern(page, async (lantern, url) => {
    const scores = async (image: Blob | ArrayBuffer) => (await lantern.classify('doc-orientation', { kind: 'image', image })).predictions.map((p) => `${p.label} ${p.score.toFixed(6)}`).join(', ');
    const file = await (await fetch(url)).blob();
    const fromFile = await scores(file);
    const fromBytes = await scores(await file.arrayBuffer());
    // The PNG header of a 1×1 image claiming 60000×60000 pixels (IHDR width and height).
    const bomb = new Uint8Array(await file.arrayBuffer());
    new DataView(bomb.buffer).setUint32(16, 60000);
    new DataView(bomb.buffer).setUint32(20, 60000);
    const refusal = await lantern.classify('doc-orientation', { kind: 'image', image: bomb.buffer }).then(
      () => 'answered',
      (error: { code?: string; details?: { reason?: string } }) => `${error.code} ${error.details?.reason}`,
    );
    return { fromFile, fromBytes, refusal, afterwards: await scores(file) };
  }, '/models/doc-orientation/1.0.0/samples/upright.png');
  expect(out.fromBytes).toEqual(out.fromFile);
  expect(out.refusal).toBe('INPUT too-many-pixels');
  expect(out.afterwards).toEqual(out.fromFile);
});

test.describe('what the Classify screen does with a running request', () => {
  const bag = readFileSync(join(ROOT, 'models/fashion-mnist/samples/bag.png'));
  /** A PNG that keeps the worker decoding long enough to act while it runs. */
  const big = () => encodePng(4000, 4000, (x, y) => ((x >> 7) + (y >> 7)) % 2 ? [255, 255, 255] : [0, 0, 0]);

  test('a pick of more files than the queue holds: every file is answered, none refused as busy', async ({ page }) => {
    // The queue of a low-end device is 64; this one is smaller still.
    await openModel(page, 'fashion-mnist', '&maxQueued=16');
    await page.getByTestId('image-file').setInputFiles(Array.from({ length: 30 }, (_, i) => ({ name: `bag-${i}.png`, mimeType: 'image/png', buffer: bag })));
    const batch = page.getByTestId('batch');
    await expect(batch.locator('tr[data-status="done"]')).toHaveCount(30);
    await expect(batch.locator('tr[data-label="Bag"]')).toHaveCount(30);
    expect(await withLantern(page, (lantern) => lantern.schedulerStats.rejectedBusy)).toBe(0);
  });

  test('choosing another model while an image runs drops that request: its answer never shows under the new model', async ({ page }) => {
    await openModel(page, 'doc-orientation', '&backlogWorkers=0');
    await page.getByTestId('image-file').setInputFiles({ name: 'big.png', mimeType: 'image/png', buffer: big() });
    await expect(page.getByTestId('status').locator('[aria-busy="true"]')).toBeVisible();
    await page.getByTestId('model-select').selectOption('spam-filter');
    expect(await withLantern(page, async (lantern) => {
      await lantern.whenIdle();
      return lantern.schedulerStats.cancelled;
    })).toBe(1);
    await expect(page.getByTestId('text-input')).toBeVisible();
    await expect(page.getByTestId('top-label')).toHaveCount(0);
  });

  test('Cancel says it was cancelled, quietly: not an error', async ({ page }) => {
    await openModel(page, 'doc-orientation', '&backlogWorkers=0');
    await page.getByTestId('image-file').setInputFiles({ name: 'big.png', mimeType: 'image/png', buffer: big() });
    await page.getByTestId('status').getByRole('button').click();
    await expect(page.getByTestId('cancelled')).toHaveText('Cancelled.');
    await expect(page.getByRole('alert')).toHaveCount(0);
  });

  test('a sample that cannot be downloaded (offline: samples live on the model\'s server) says so', async ({ page }) => {
    await openModel(page, 'fashion-mnist');
    await page.route('**/samples/**', (route) => route.abort('internetdisconnected'));
    await page.getByTestId('sample-bag').click();
    await expect(page.getByTestId('sample-failed')).toHaveText('Samples come from the server: they need a connection. Your own text and images work offline.');
    await expect(page.getByTestId('sample-failed')).toHaveAttribute('role', 'alert');
  });
});

test('a text the model cannot read: one in a language outside its vocabulary carries a note, one of invisible characters is refused as empty', async ({ page }) => {
  await openModel(page, 'spam-filter');
  // "Shall we have lunch together tomorrow?" in Hindi: the spam filter read only English mail.
  await page.getByTestId('text-input').fill('क्या हम कल दोपहर का खाना साथ खाएँ?');
  await page.getByTestId('classify-text').click();
  await expect(page.getByTestId('notes').locator('[data-kind="unknown-words"]')).toHaveText(/^\d+% of these words are unknown to this model/);
  await page.getByTestId('text-input').fill('\u200b\u200b\u200b');
  await page.getByTestId('classify-text').click();
  await expect(page.getByTestId('error')).toHaveAttribute('data-code', 'INPUT');
  await expect(page.getByTestId('error')).toContainText('The text is empty');
  // An English mail carries no such note.
  await page.getByTestId('sample-ham').click();
  await expect(page.getByTestId('top-label')).toHaveAttribute('data-label', 'ham');
  await expect(page.getByTestId('notes')).toHaveCount(0);
});
