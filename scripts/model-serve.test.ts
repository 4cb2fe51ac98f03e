import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCatalog, releasesOf } from '../src/runtime/store/catalog.ts';
import { generateKey, parseSignatureFile, TrustStore, trustEntryFor, type KeyFile } from '../src/runtime/store/trust.ts';
import { readModelFolder } from './model-pack/folder.ts';
import { packRelease, writeRelease } from './model-pack/release.ts';
import { releaseServer } from './model-serve.ts';
import { close, listen, rawGet } from './raw-http.test-helpers.ts';

const ROOT = join(import.meta.dirname, '..');
let dir: string;
let outside: string;
let port: number;
let server: ReturnType<typeof releaseServer>;
let base: string;
let key: KeyFile;

beforeAll(async () => {
  outside = await mkdtemp(join(tmpdir(), 'lantern-outside-'));
  await writeFile(join(outside, 'outside.txt'), 'private key');
  dir = await mkdtemp(join(tmpdir(), 'lantern-serve-'));
  await symlink(join(outside, 'outside.txt'), join(dir, 'link.txt'));
  await symlink(outside, join(dir, 'linked-dir'));
  key = await generateKey('t');
  const release = await packRelease(await readModelFolder(join(ROOT, 'models/fashion-mnist')), { keys: [key] });
  await writeRelease(dir, release, { keys: [key] });
  server = releaseServer(dir);
  port = await listen(server);
  base = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  await close(server);
  await rm(dir, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
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
    const open = await fetch(url, { headers: { Range: `bytes=${whole.length - 4}-` } });
    expect([open.status, open.headers.get('content-range')]).toEqual([206, `bytes ${whole.length - 4}-${whole.length - 1}/${whole.length}`]);
  });

  it('never serves outside its folder: raw traversal paths and symlinks (attack case 12)', async () => {
    // fetch() would normalise these away before sending: a raw socket sends them as written.
    for (const path of ['/../outside.txt', '/%2e%2e/outside.txt', '/..%2foutside.txt', '/fashion-mnist/%2e%2e/%2e%2e/outside.txt', '/link.txt', '/linked-dir/outside.txt']) {
      const { status, body } = await rawGet(port, path);
      expect(body, path).not.toContain('private key');
      expect(status, path).toBe(404);
    }
    expect((await rawGet(port, '/%')).status).toBe(400);
    expect((await fetch(`${base}/catalog.json`)).status).toBe(200);
  });
});
