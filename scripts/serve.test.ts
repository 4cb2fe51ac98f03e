import { execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { close, listen, rawGet } from './raw-http.test-helpers.ts';
import { appServer } from './serve.mjs';

/** The production server (`npm start`) on a temporary dist folder with a secret next to it. */
let work: string;
let server: ReturnType<typeof appServer>;
let base: string;
let port: number;
const script = 'console.log("lantern");'.repeat(200);
const wasm = new Uint8Array(1000).map((_, i) => i % 251);

beforeAll(async () => {
  work = await realpath(await mkdtemp(join(tmpdir(), 'lantern-dist-')));
  const dist = join(work, 'dist');
  await mkdir(join(dist, 'assets'), { recursive: true });
  await writeFile(join(work, 'secret.txt'), 'signing key');
  await writeFile(join(dist, 'index.html'), '<!doctype html><title>Lantern</title>');
  await writeFile(join(dist, 'assets', 'index-abcdefgh.js'), script);
  await writeFile(join(dist, 'assets', 'index-abcdefgh.js.br'), brotliCompressSync(script));
  await writeFile(join(dist, 'assets', 'index-abcdefgh.js.gz'), gzipSync(script));
  await writeFile(join(dist, 'assets', 'ort-abcdefgh.wasm'), wasm);
  await symlink(join(work, 'secret.txt'), join(dist, 'leak.txt'));
  server = appServer(dist);
  port = await listen(server);
  base = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  await close(server);
  await rm(work, { recursive: true, force: true });
});

describe('npm start (scripts/serve.mjs)', () => {
  it('answers 400 to a malformed escape and keeps serving (attack case 3)', async () => {
    expect((await rawGet(port, '/%')).status).toBe(400);
    expect((await rawGet(port, '/assets/%E0%A4%A')).status).toBe(400);
    expect((await rawGet(port, '/%00')).status).toBe(400);
    expect((await fetch(`${base}/`)).status).toBe(200);
  });

  it('never serves outside its folder: traversal, encoded traversal, symlinks', async () => {
    for (const path of ['/../secret.txt', '/%2e%2e/secret.txt', '/assets/..%2f..%2fsecret.txt', '/%2e%2e%5csecret.txt', '/leak.txt']) {
      const { status, body } = await rawGet(port, path);
      expect(body, path).not.toContain('signing key');
      expect([400, 404], path).toContain(status);
    }
  });

  it('sends index.html for navigations and 404 for a missing asset', async () => {
    expect(await (await fetch(`${base}/models/screen`)).text()).toContain('<title>Lantern</title>');
    expect((await fetch(`${base}/assets/missing-abcdefgh.js`)).status).toBe(404);
  });

  it('sends a share posted before the service worker is installed to the app, and refuses other posts', async () => {
    const form = new FormData();
    form.append('text', 'Win a cruise');
    const shared = await fetch(`${base}/share-target`, { method: 'POST', body: form, redirect: 'manual' });
    expect(shared.status).toBe(303);
    expect(shared.headers.get('location')).toBe('/');
    expect((await fetch(`${base}/`, { method: 'POST', body: form })).status).toBe(405);
  });

  it('answers Range requests: closed, open, suffix, unsatisfiable', async () => {
    const url = `${base}/assets/ort-abcdefgh.wasm`;
    const get = (range: string) => fetch(url, { headers: { Range: range } });
    const closed = await get('bytes=10-19');
    expect(closed.status).toBe(206);
    expect(closed.headers.get('content-range')).toBe('bytes 10-19/1000');
    expect(new Uint8Array(await closed.arrayBuffer())).toEqual(wasm.subarray(10, 20));
    const open = await get('bytes=990-');
    expect([open.status, open.headers.get('content-range')]).toEqual([206, 'bytes 990-999/1000']);
    expect(new Uint8Array(await open.arrayBuffer())).toEqual(wasm.subarray(990));
    const suffix = await get('bytes=-5');
    expect([suffix.status, suffix.headers.get('content-range')]).toEqual([206, 'bytes 995-999/1000']);
    expect(new Uint8Array(await suffix.arrayBuffer())).toEqual(wasm.subarray(995));
    const beyond = await get('bytes=1000-');
    expect([beyond.status, beyond.headers.get('content-range')]).toEqual([416, 'bytes */1000']);
  });

  it('answers HEAD with the GET headers and no body', async () => {
    const head = await fetch(`${base}/assets/ort-abcdefgh.wasm`, { method: 'HEAD' });
    expect([head.status, head.headers.get('content-length'), head.headers.get('content-type')]).toEqual([200, '1000', 'application/wasm']);
    expect((await head.arrayBuffer()).byteLength).toBe(0);
    const part = await fetch(`${base}/assets/ort-abcdefgh.wasm`, { method: 'HEAD', headers: { Range: 'bytes=0-99' } });
    expect([part.status, part.headers.get('content-length'), part.headers.get('content-range')]).toEqual([206, '100', 'bytes 0-99/1000']);
    expect((await fetch(`${base}/`, { method: 'POST' })).status).toBe(405);
  });

  it('sends the precompressed file the browser accepts, with Vary, and the plain one for a Range', async () => {
    const url = `${base}/assets/index-abcdefgh.js`;
    const raw = (encoding: string, range?: string) => fetch(url, { headers: { 'Accept-Encoding': encoding, ...(range ? { Range: range } : {}) } });
    // Node's fetch decodes Content-Encoding itself: check headers, and the decoded text.
    const br = await raw('gzip, deflate, br');
    expect([br.headers.get('content-encoding'), br.headers.get('vary')]).toEqual(['br', 'Accept-Encoding']);
    expect(br.headers.get('content-length')).toBe(String(brotliCompressSync(script).length));
    expect(await br.text()).toBe(script);
    const gz = await raw('gzip');
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    expect(await gz.text()).toBe(script);
    const refused = await raw('br;q=0, identity');
    expect([refused.headers.get('content-encoding'), refused.headers.get('vary'), await refused.text()]).toEqual([null, 'Accept-Encoding', script]);
    const ranged = await raw('br', 'bytes=0-6');
    expect([ranged.status, ranged.headers.get('content-encoding'), await ranged.text()]).toEqual([206, null, script.slice(0, 7)]);
    const head = await fetch(url, { method: 'HEAD', headers: { 'Accept-Encoding': 'br' } });
    expect([head.headers.get('content-encoding'), head.headers.get('content-length')]).toEqual(['br', String(brotliCompressSync(script).length)]);
    expect(brotliDecompressSync(brotliCompressSync(script)).toString()).toBe(script);
  });
});

describe('node scripts/serve.mjs: the CLI conventions', () => {
  /** Runs the server as `npm start` does (plain Node): exit code and output. A run that starts the server is never made here. */
  const serve = (...args: string[]) => new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [join(import.meta.dirname, 'serve.mjs'), ...args], { env: { ...process.env, LANTERN_DEBUG: '' } }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
    });
  });

  it('--help prints the usage; no build, an unknown flag or a refused --connect-src is one sentence, never a stack', async () => {
    const missing = join(work, 'no-dist');
    const [help, unbuilt, unknown, insecure] = await Promise.all([
      serve('--help'), serve('--dir', missing), serve('--bogus'), serve('--dir', join(work, 'dist'), '--connect-src', 'http://models.example.org'),
    ]);
    expect([help.code, help.stderr]).toEqual([0, '']);
    expect(help.stdout).toMatch(/^Usage:\n {2}node scripts\/serve\.mjs \[--dir dist\]/);
    expect(unbuilt).toEqual({ code: 1, stdout: '', stderr: `serve.mjs: ${missing} holds no built app: run npm run build first (or pass --dir).\n` });
    expect(unknown).toEqual({ code: 2, stdout: '', stderr: 'serve.mjs: unknown option --bogus.\nRun with --help for usage.\n' });
    expect(insecure).toEqual({ code: 2, stdout: '', stderr: 'serve.mjs: --connect-src http://models.example.org is not an acceptable model origin: use https (plain http only for localhost).\nRun with --help for usage.\n' });
  }, 60_000);

  /** A built app folder whose registry-config.json allows `origins`. */
  async function builtWith(name: string, origins: string[]): Promise<string> {
    const dist = join(work, name);
    await mkdir(dist, { recursive: true });
    await writeFile(join(dist, 'index.html'), '<!doctype html><title>Lantern</title>');
    await writeFile(join(dist, 'registry-config.json'), JSON.stringify({ catalogUrl: 'models/catalog.json', allowedOrigins: origins }));
    return dist;
  }

  it('allows in the CSP connect-src the model origins the build allows (registry-config.json), and --connect-src\'s', async () => {
    const dist = await builtWith('dist-origins', ['https://models.example.org/']);
    const child = spawn(process.execPath, [join(import.meta.dirname, 'serve.mjs'), '--dir', dist, '--port', '0', '--connect-src', 'http://127.0.0.1:8787']);
    try {
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          const served = /served at (\S+)/.exec(chunk.toString());
          if (served) resolve(served[1]!);
        });
        child.once('exit', (code) => reject(new Error(`serve.mjs exited with ${code}`)));
      });
      const csp = (await fetch(url)).headers.get('content-security-policy');
      expect(csp).toContain("connect-src 'self' https://models.example.org http://127.0.0.1:8787;");
    } finally {
      child.kill();
    }
  }, 60_000);

  it('refuses to start on a build whose registry-config.json allows an origin devices refuse, naming the file', async () => {
    const dist = await builtWith('dist-insecure', ['http://models.example.org']);
    expect(await serve('--dir', dist, '--port', '0')).toEqual({
      code: 1, stdout: '', stderr: `serve.mjs: ${join(dist, 'registry-config.json')}: http://models.example.org is not an acceptable model origin: use https (plain http only for localhost).\n`,
    });
  }, 60_000);
});
