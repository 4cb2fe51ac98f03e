#!/usr/bin/env node
// @ts-check
/**
 * Production static server for dist/: the headers from headers.mjs on every response, and
 * caching that suits a PWA — content-hashed assets are immutable, while the HTML shell, the
 * service worker and the web manifest are always revalidated so updates are seen.
 * Precompressed `.br`/`.gz` siblings written at build time (precompress.ts) are sent to
 * browsers that accept them, with `Vary: Accept-Encoding`; Range requests get the plain file
 * (a byte range of a compressed stream is useless to the downloader). A share posted before the
 * service worker is installed gets a 303 to the app.
 * Usage below (`--help`); it follows the CLI conventions of cli.mjs.
 */
import { createServer } from 'node:http';
import { stat } from 'node:fs/promises';
import { extname } from 'node:path';
import { integerOption, isEntryPoint, parseCommandLine, runCli, UsageError } from './cli.mjs';
import { allowedOriginsOf, headersFor, modelOrigin, securityHeaders } from './headers.mjs';
import { contentType, realRoot, resolveInside, sendBody } from './static-http.mjs';

/** Encodings we precompress, in order of preference (smallest first). */
const ENCODINGS = [{ name: 'br', suffix: '.br' }, { name: 'gzip', suffix: '.gz' }];

/** @param {string} path */
function cacheControl(path) {
  if (/\/assets\/.+-[A-Za-z0-9_-]{8,}\.\w+$/.test(path)) return 'public, max-age=31536000, immutable';
  return 'no-cache';
}

/**
 * Whether an Accept-Encoding header accepts `name` (q=0 refuses; `*` accepts).
 * @param {string} header
 * @param {string} name
 */
function accepts(header, name) {
  for (const part of header.split(',')) {
    const [token = '', ...params] = part.trim().split(';').map((s) => s.trim());
    if (token.toLowerCase() !== name && token !== '*') continue;
    const q = params.find((p) => p.startsWith('q='));
    return !q || Number(q.slice(2)) > 0;
  }
  return false;
}

/**
 * The precompressed siblings of `file` that exist, and the one to send for this request.
 * @param {string} file
 * @param {import('node:http').IncomingMessage} req
 */
async function negotiate(file, req) {
  const variants = [];
  for (const encoding of ENCODINGS) {
    const info = await stat(file + encoding.suffix).catch(() => undefined);
    if (info?.isFile()) variants.push({ ...encoding, path: file + encoding.suffix, size: info.size });
  }
  const acceptHeader = req.headers['accept-encoding'] ?? '';
  const chosen = req.headers.range === undefined ? variants.find((v) => accepts(acceptHeader, v.name)) : undefined;
  return { varies: variants.length > 0, chosen };
}

/**
 * @param {string} root a real path (static-http.mjs realRoot)
 * @param {Record<string, string>} headers sent with every response
 * @param {import('node:http').IncomingMessage} req
 * @param {import('node:http').ServerResponse} res
 */
async function handle(root, headers, req, res) {
  const pathname = (req.url ?? '/').split('?')[0] ?? '/';
  // The manifest's share target (src/share-target.ts) posts here and the service worker answers.
  // A share before that worker is installed reaches us instead: it is lost, but the app opens.
  if (req.method === 'POST' && pathname === '/share-target') {
    res.writeHead(303, { ...headers, Location: '/' });
    return res.end();
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { ...headers, Allow: 'GET, HEAD' });
    return res.end();
  }
  let found = await resolveInside(root, req.url ?? '/', { index: true });
  if (found.status === 400) {
    res.writeHead(400, { ...headers, 'Content-Type': 'text/plain' });
    return res.end('Bad request');
  }
  // SPA fallback for navigations only; a missing asset is a real 404.
  if (found.status === 404 && !extname(pathname)) found = await resolveInside(root, '/index.html');
  if (found.status !== 200) {
    res.writeHead(404, { ...headers, 'Content-Type': 'text/plain' });
    return res.end('Not found');
  }
  const { varies, chosen } = await negotiate(found.file, req);
  const type = contentType(found.file);
  sendBody(req, res, chosen ?? { path: found.file, size: found.size }, {
    ...headersFor(headers, type),
    'Content-Type': type,
    'Cache-Control': cacheControl(found.file),
    ...(varies ? { Vary: 'Accept-Encoding' } : {}),
    ...(chosen ? { 'Content-Encoding': chosen.name } : {}),
  });
}

/**
 * The production server for a built app folder.
 * @param {string} root a real path (static-http.mjs realRoot)
 * @param {{ connectSrc?: string[] }} [options] the CSP connect-src origins besides its own (model servers)
 */
export function appServer(root, options = {}) {
  const headers = securityHeaders({ dev: false, connectSrc: options.connectSrc ?? [] });
  return createServer((req, res) => {
    handle(root, headers, req, res).catch(() => {
      // Whatever went wrong, this request fails alone: the server keeps serving.
      if (!res.headersSent) res.writeHead(500, headers);
      res.end();
    });
  });
}

export const USAGE = `Usage:
  node scripts/serve.mjs [--dir dist] [--port 4173] [--host 127.0.0.1] [--connect-src ORIGIN]...
  node scripts/serve.mjs --help | --version

Serves the built app (npm run build writes dist/) with Lantern's security headers and caching.
The CSP connect-src allows the model origins the build's registry-config.json allows
(LANTERN_ALLOWED_ORIGINS at build time); --connect-src adds one more (repeat it for several;
https, or plain http only on localhost). npm start builds the app and runs this. The port defaults to
$PORT when it is set. Exit codes: 0 stopped, 1 failed (e.g. no build yet, port in use), 2 usage error.`;

/**
 * Starts the production server; resolves once it listens (it stays up until the process is stopped).
 * @param {string[]} args
 */
export async function serveAppCli(args) {
  const { values } = parseCommandLine({
    args,
    options: {
      dir: { type: 'string', default: 'dist' },
      port: { type: 'string', default: process.env.PORT ?? '4173' },
      host: { type: 'string', default: '127.0.0.1' },
      'connect-src': { type: 'string', multiple: true, default: [] },
    },
  });
  const port = integerOption('port', values.port, { max: 65535 });
  const connectSrc = values['connect-src'].map((origin) => {
    try {
      return modelOrigin(origin);
    } catch (error) {
      throw new UsageError(`--connect-src ${/** @type {Error} */ (error).message}`);
    }
  });
  const info = await stat(values.dir).catch(() => undefined);
  if (!info?.isDirectory()) throw new Error(`${values.dir} holds no built app: run npm run build first (or pass --dir).`);
  const root = await realRoot(values.dir);
  const server = appServer(root, { connectSrc: [...new Set([...(await allowedOriginsOf(root)), ...connectSrc])] });
  await new Promise((listening, fail) => {
    server.once('error', fail);
    server.listen(port, values.host, () => listening(undefined));
  });
  // The port it got: --port 0 asks the system for a free one.
  const bound = /** @type {import('node:net').AddressInfo} */ (server.address()).port;
  console.log(`Lantern is being served at http://${values.host}:${bound}/ from ${root}`);
}

if (isEntryPoint(import.meta.url)) {
  void runCli({ name: 'serve.mjs', usage: USAGE }, process.argv.slice(2), serveAppCli);
}
