/**
 * Publishes a folder of signed releases (what `model:pack --out <dir>` writes) for Lantern apps:
 *   npm run model:serve -- <releases-dir> [--port 8787] [--host 127.0.0.1]
 * The catalog (`/catalog.json`, lantern-catalog/1) is generated from every
 * `<id>/<version>/manifest.json` that has a `manifest.sig.json` next to it, at each request, so
 * packing another release while serving just works. Files are served with Range support and
 * CORS + `Cross-Origin-Resource-Policy: cross-origin`, which a cross-origin-isolated app needs.
 * Any static host with the same headers works too (README, "Add your own model").
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { ReleaseEntry } from '../src/runtime/store/catalog.ts';
import { parseManifest, totalSize } from '../src/runtime/store/manifest.ts';
import { catalogJson } from './model-pack/release.ts';

export const RELEASE_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Headers': 'Range',
  'Access-Control-Expose-Headers': 'Content-Range, Content-Length',
  'Cross-Origin-Resource-Policy': 'cross-origin',
  'Cache-Control': 'no-cache',
};

const TYPES: Record<string, string> = { json: 'application/json', txt: 'text/plain; charset=utf-8', png: 'image/png', jpg: 'image/jpeg' };

async function* manifests(dir: string): AsyncGenerator<string> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* manifests(path);
    else if (entry.name === 'manifest.json') yield path;
  }
}

/** Catalog entries for every signed release under `root` (unsigned or invalid ones are skipped). */
export async function scanReleases(root: string): Promise<ReleaseEntry[]> {
  const entries: ReleaseEntry[] = [];
  for await (const path of manifests(root)) {
    const signature = path.replace(/manifest\.json$/, 'manifest.sig.json');
    if (!(await stat(signature).catch(() => undefined))) continue;
    try {
      const manifest = parseManifest(await readFile(path));
      const rel = (p: string) => relative(root, p).split(sep).join('/');
      entries.push({ id: manifest.id, version: manifest.version, sequence: manifest.sequence, title: manifest.title, manifest: rel(path), signature: rel(signature), size: totalSize(manifest) });
    } catch {
      console.warn(`Skipping ${relative(root, path)}: not a valid release manifest.`);
    }
  }
  return entries.sort((a, b) => a.id.localeCompare(b.id) || a.sequence - b.sequence);
}

/** Sends `body` whole or the requested byte range. */
function send(req: IncomingMessage, res: ServerResponse, body: Uint8Array, type: string): void {
  const headers = { ...RELEASE_HEADERS, 'Content-Type': type, 'Accept-Ranges': 'bytes' };
  const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
  if (!range) {
    res.writeHead(200, { ...headers, 'Content-Length': body.length });
    return void res.end(req.method === 'HEAD' ? undefined : body);
  }
  const start = Number(range[1]);
  if (start >= body.length) {
    res.writeHead(416, { ...headers, 'Content-Range': `bytes */${body.length}` });
    return void res.end();
  }
  const end = Math.min(range[2] ? Number(range[2]) : body.length - 1, body.length - 1);
  res.writeHead(206, { ...headers, 'Content-Range': `bytes ${start}-${end}/${body.length}`, 'Content-Length': end - start + 1 });
  res.end(req.method === 'HEAD' ? undefined : body.subarray(start, end + 1));
}

export function releaseServer(rootDir: string) {
  const root = resolve(rootDir);
  return createServer((req, res) => {
    void (async () => {
      if (req.method === 'OPTIONS') {
        res.writeHead(204, RELEASE_HEADERS);
        return void res.end();
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, RELEASE_HEADERS);
        return void res.end();
      }
      const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
      if (path === '/catalog.json') return send(req, res, new TextEncoder().encode(catalogJson(await scanReleases(root))), TYPES.json!);
      const file = resolve(root, `.${path}`);
      const body = file.startsWith(root + sep) ? await readFile(file).catch(() => undefined) : undefined;
      if (!body) {
        res.writeHead(404, RELEASE_HEADERS);
        return void res.end();
      }
      send(req, res, body, TYPES[file.split('.').pop() ?? ''] ?? 'application/octet-stream');
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500, RELEASE_HEADERS);
      res.end();
    });
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { port: { type: 'string', default: '8787' }, host: { type: 'string', default: '127.0.0.1' } } });
  const [dir] = positionals;
  if (!dir) {
    console.error('usage: npm run model:serve -- <releases-dir> [--port 8787] [--host 127.0.0.1]');
    process.exit(2);
  }
  const server = releaseServer(dir);
  server.listen(Number(values.port), values.host, async () => {
    const releases = await scanReleases(resolve(dir));
    console.log(`Serving ${releases.length} release(s); catalog at http://${values.host}:${values.port}/catalog.json`);
    console.log('Allow this origin in the app: LANTERN_ALLOWED_ORIGINS at build time (or registry-config.json allowedOrigins) and the CSP connect-src (serve.mjs --connect-src).');
  });
}
