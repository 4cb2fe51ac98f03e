import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCatalog } from '../src/runtime/store/catalog.ts';
import { generateKey } from '../src/runtime/store/trust.ts';
import { readModelFolder } from './model-pack/folder.ts';
import { packRelease, writeRelease } from './model-pack/release.ts';
import { releaseServer } from './model-serve.ts';

const ROOT = join(import.meta.dirname, '..');
let dir: string;
let server: ReturnType<typeof releaseServer>;
let base: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lantern-serve-'));
  const release = await packRelease(await readModelFolder(join(ROOT, 'models/fashion-mnist')), { keys: [await generateKey('t')] });
  await writeRelease(dir, release);
  // An unsigned manifest copy must not be listed.
  await writeFile(join(dir, 'fashion-mnist/manifest.json'), '{}');
  server = releaseServer(dir);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

describe('model:serve', () => {
  it('generates a catalog of the signed releases with the headers a cross-origin-isolated app needs', async () => {
    const response = await fetch(`${base}/catalog.json`);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    const releases = parseCatalog(await response.json(), `${base}/catalog.json`);
    expect(releases.map((r) => `${r.id}@${r.version}`)).toEqual(['fashion-mnist@1.0.0']);
    expect((await fetch(releases[0]!.signatureUrl)).status).toBe(200);
  });

  it('answers Range requests and never serves outside its folder', async () => {
    const url = `${base}/fashion-mnist/1.0.0/onnx/model_quantized.onnx`;
    const whole = new Uint8Array(await (await fetch(url)).arrayBuffer());
    const part = await fetch(url, { headers: { Range: 'bytes=10-19' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 10-19/${whole.length}`);
    expect(new Uint8Array(await part.arrayBuffer())).toEqual(whole.subarray(10, 20));
    expect((await fetch(url, { headers: { Range: `bytes=${whole.length}-` } })).status).toBe(416);
    expect((await fetch(`${base}/..%2f..%2fpackage.json`)).status).toBe(404);
    expect((await fetch(`${base}/%2e%2e/package.json`)).status).toBe(404);
  });
});
