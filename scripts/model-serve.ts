/**
 * Publishes a folder of signed releases (what `model:pack --out <dir>` writes) for Lantern apps:
 *   npm run model:serve -- <releases-dir> [--port 8787] [--host 127.0.0.1]
 * The signed catalog (`catalog.json` + `catalog.sig.json`) is the one `model:pack` wrote and
 * re-signs on every pack, so packing another release while serving just works. Files are served with Range support and
 * CORS + `Cross-Origin-Resource-Policy: cross-origin`, which a cross-origin-isolated app needs.
 * Any static host with the same headers works too (README, "Add your own model").
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { readFile } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

export const RELEASE_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Headers': 'Range',
  'Access-Control-Expose-Headers': 'Content-Range, Content-Length',
  'Cross-Origin-Resource-Policy': 'cross-origin',
  'Cache-Control': 'no-cache',
};

const TYPES: Record<string, string> = { json: 'application/json', txt: 'text/plain; charset=utf-8', png: 'image/png', jpg: 'image/jpeg' };

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
  server.listen(Number(values.port), values.host, () => {
    console.log(`Serving ${resolve(dir)}; signed catalog at http://${values.host}:${values.port}/catalog.json`);
    console.log('Allow this origin in the app: LANTERN_ALLOWED_ORIGINS at build time (or registry-config.json allowedOrigins) and the CSP connect-src (serve.mjs --connect-src).');
  });
}
