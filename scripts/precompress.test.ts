import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { precompress, servedSize } from './precompress.ts';

let dist: string;
const script = 'export const lantern = "on-device";\n'.repeat(500);
beforeAll(async () => {
  dist = await mkdtemp(join(tmpdir(), 'lantern-precompress-'));
  await mkdir(join(dist, 'assets'));
  await mkdir(join(dist, 'models', 'spam-filter'), { recursive: true });
  await writeFile(join(dist, 'assets', 'index-abcdefgh.js'), script);
  await writeFile(join(dist, 'assets', 'noise-abcdefgh.wasm'), randomBytes(4096));
  await writeFile(join(dist, 'assets', 'photo.png'), script);
  await writeFile(join(dist, 'index.html'), '<!doctype html>');
  await writeFile(join(dist, 'models', 'spam-filter', 'config.json'), script);
});
afterAll(() => rm(dist, { recursive: true, force: true }));

describe('precompress (build step)', () => {
  it('writes .br and .gz next to compressible files that shrink, and nothing else', async () => {
    const written = await precompress(dist);
    expect(brotliDecompressSync(await readFile(join(dist, 'assets', 'index-abcdefgh.js.br'))).toString()).toBe(script);
    expect(gunzipSync(await readFile(join(dist, 'assets', 'index-abcdefgh.js.gz'))).toString()).toBe(script);
    // Random bytes do not shrink; PNG is already compressed; tiny files are not worth it.
    expect((await readdir(join(dist, 'assets'))).sort()).toEqual(['index-abcdefgh.js', 'index-abcdefgh.js.br', 'index-abcdefgh.js.gz', 'noise-abcdefgh.wasm', 'photo.png']);
    // Model files too: one of one chunk is downloaded whole, and may then come compressed.
    expect((await readdir(join(dist, 'models', 'spam-filter'))).sort()).toEqual(['config.json', 'config.json.br', 'config.json.gz']);
    expect(await readdir(dist)).not.toContain('index.html.br');
    const js = written.find((w) => w.path === join('assets', 'index-abcdefgh.js'));
    expect(js!.br).toBeLessThan(js!.gz!);
    expect(js!.gz).toBeLessThan(script.length);
  });

  it('tells, before any copy is written, what a browser downloads for each file: its brotli copy, or the file itself', async () => {
    const fresh = await mkdtemp(join(tmpdir(), 'lantern-served-'));
    try {
      for (const name of ['index-abcdefgh.js', 'noise-abcdefgh.wasm', 'photo.png']) await writeFile(join(fresh, name), await readFile(join(dist, 'assets', name)));
      await writeFile(join(fresh, 'index.html'), '<!doctype html>');
      expect(await servedSize(join(fresh, 'index-abcdefgh.js'))).toBe((await readFile(join(dist, 'assets', 'index-abcdefgh.js.br'))).length);
      expect(await servedSize(join(fresh, 'noise-abcdefgh.wasm'))).toBe(4096);
      expect(await servedSize(join(fresh, 'photo.png'))).toBe(script.length);
      expect(await servedSize(join(fresh, 'index.html'))).toBe('<!doctype html>'.length);
      expect(await readdir(fresh)).toHaveLength(4);
    } finally {
      await rm(fresh, { recursive: true, force: true });
    }
  });

});
