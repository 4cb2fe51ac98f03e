#!/usr/bin/env node
/**
 * Production static server for dist/: the headers from headers.mjs on every response, and
 * caching that suits a PWA — content-hashed assets are immutable, while the HTML shell, the
 * service worker and the web manifest are always revalidated so updates are seen.
 * Usage: node scripts/serve.mjs [--dir dist] [--port 4173] [--host 127.0.0.1]
 */
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';
import { securityHeaders } from './headers.mjs';

const { values } = parseArgs({
  options: {
    dir: { type: 'string', default: 'dist' },
    port: { type: 'string', default: process.env.PORT ?? '4173' },
    host: { type: 'string', default: '127.0.0.1' },
    'connect-src': { type: 'string', multiple: true, default: [] },
  },
});
const root = resolve(values.dir);
const headers = securityHeaders({ dev: false, connectSrc: values['connect-src'] });

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.wasm': 'application/wasm',
  '.onnx': 'application/octet-stream',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.bin': 'application/octet-stream',
};

function cacheControl(path) {
  if (/\/assets\/.+-[A-Za-z0-9_-]{8,}\.\w+$/.test(path)) return 'public, max-age=31536000, immutable';
  return 'no-cache';
}

async function resolveFile(urlPath) {
  const clean = normalize(decodeURIComponent(urlPath)).replace(/^([/\\])+/, '');
  const file = join(root, clean);
  if (file !== root && !file.startsWith(root + sep)) return null;
  const info = await stat(file).catch(() => null);
  if (info?.isFile()) return file;
  if (info?.isDirectory()) return resolveFile(join(clean, 'index.html'));
  return null;
}

const server = createServer(async (req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  let file = await resolveFile(url.pathname);
  // SPA fallback for navigations only; a missing asset is a real 404.
  if (!file && !extname(url.pathname)) file = join(root, 'index.html');
  if (!file) {
    res.writeHead(404, { ...headers, 'Content-Type': 'text/plain' });
    return res.end('Not found');
  }
  const body = await readFile(file).catch(() => null);
  if (!body) {
    res.writeHead(404, headers);
    return res.end();
  }
  const type = TYPES[extname(file)] ?? 'application/octet-stream';
  const common = { ...headers, 'Content-Type': type, 'Cache-Control': cacheControl(file), 'Accept-Ranges': 'bytes' };
  const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
  if (range) {
    const start = Number(range[1]);
    const end = range[2] ? Math.min(Number(range[2]), body.length - 1) : body.length - 1;
    if (start >= body.length || start > end) {
      res.writeHead(416, { ...common, 'Content-Range': `bytes */${body.length}` });
      return res.end();
    }
    res.writeHead(206, { ...common, 'Content-Range': `bytes ${start}-${end}/${body.length}`, 'Content-Length': end - start + 1 });
    return res.end(req.method === 'HEAD' ? undefined : body.subarray(start, end + 1));
  }
  res.writeHead(200, { ...common, 'Content-Length': body.length });
  res.end(req.method === 'HEAD' ? undefined : body);
});

server.listen(Number(values.port), values.host, () => {
  console.log(`Lantern is being served at http://${values.host}:${values.port}/ from ${root}`);
});
