import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCatalog, releasesOf } from '../src/runtime/store/catalog.ts';
import { generateKey, parseSignatureFile, TrustStore, trustEntryFor, type KeyFile } from '../src/runtime/store/trust.ts';
import { readModelFolder } from './model-pack/folder.ts';
import { packRelease, writeRelease } from './model-pack/release.ts';
import { releaseServer } from './model-serve.ts';

const ROOT = join(import.meta.dirname, '..');
let dir: string;
let server: ReturnType<typeof releaseServer>;
let base: string;
let key: KeyFile;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lantern-serve-'));
  key = await generateKey('t');
  const release = await packRelease(await readModelFolder(join(ROOT, 'models/fashion-mnist')), { keys: [key] });
  await writeRelease(dir, release, { keys: [key] });
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
  it('serves the signed catalog model:pack wrote, with the headers a cross-origin-isolated app needs', async () => {
    const response = await fetch(`${base}/catalog.json`);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    const bytes = new Uint8Array(await response.arrayBuffer());
    const signature = parseSignatureFile(new Uint8Array(await (await fetch(`${base}/catalog.sig.json`)).arrayBuffer()));
    const trust = new TrustStore({ keys: [trustEntryFor(key, ['fashion-mnist'])] });
    expect(await trust.signers(bytes, signature, 'model catalog')).toEqual([key.keyId]);
    const catalog = parseCatalog(bytes);
    expect(Date.parse(catalog.expiresAt)).toBeGreaterThan(Date.now());
    const releases = releasesOf(catalog, `${base}/catalog.json`);
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
