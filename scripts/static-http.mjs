// @ts-check
/**
 * The one HTTP file-serving implementation of every Lantern server: the production server
 * (serve.mjs), `model:serve` and the dev server's built-in models (models-plugin.ts). It owns
 * the rules they used to disagree on:
 * - Range (RFC 9110 §14): `a-b`, open `a-` and suffix `-n` ranges; a range that starts past
 *   the end is 416 with `Content-Range: bytes * /size`; a malformed or multi-range header is
 *   ignored (the whole body, 200), which the RFC allows.
 * - HEAD answers the GET headers with no body.
 * - Paths: a malformed escape is 400, never an exception; `..`, NUL and anything whose real
 *   path (symlinks resolved) lies outside the served folder is 404.
 * Plain JS (checked with @ts-check) so that `npm start` runs with Node alone.
 */
import { createReadStream } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';

/**
 * @typedef {{ status: 200 } | { status: 206, start: number, end: number } | { status: 416 }} RangeAnswer
 * @typedef {import('node:http').IncomingMessage} Request
 * @typedef {import('node:http').ServerResponse} Response
 * @typedef {Uint8Array | { path: string, size: number }} Body
 */

/**
 * What to answer to a `Range` header for a body of `size` bytes. `end` is inclusive.
 * @param {string | undefined} header
 * @param {number} size
 * @returns {RangeAnswer}
 */
export function parseRange(header, size) {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header?.trim() ?? '');
  if (!match || (match[1] === '' && match[2] === '')) return { status: 200 };
  const [first, last] = [match[1] ?? '', match[2] ?? ''];
  if (first === '') {
    // Suffix range: the last n bytes.
    const n = Number(last);
    if (n === 0 || size === 0) return { status: 416 };
    return { status: 206, start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(first);
  if (last !== '' && Number(last) < start) return { status: 200 };
  if (start >= size) return { status: 416 };
  return { status: 206, start, end: last === '' ? size - 1 : Math.min(Number(last), size - 1) };
}

/**
 * Sends `body` (bytes, or a file streamed from disk) whole or as the requested range.
 * @param {Request} req
 * @param {Response} res
 * @param {Body} body
 * @param {Record<string, string>} headers
 */
export function sendBody(req, res, body, headers) {
  const size = body instanceof Uint8Array ? body.length : body.size;
  const range = req.headers.range === undefined ? { status: /** @type {const} */ (200) } : parseRange(req.headers.range, size);
  const common = { ...headers, 'Accept-Ranges': 'bytes' };
  if (range.status === 416) {
    res.writeHead(416, { ...common, 'Content-Range': `bytes */${size}` });
    res.end();
    return;
  }
  const [start, end] = range.status === 206 ? [range.start, range.end] : [0, size - 1];
  res.writeHead(range.status, {
    ...common,
    'Content-Length': String(end - start + 1),
    ...(range.status === 206 ? { 'Content-Range': `bytes ${start}-${end}/${size}` } : {}),
  });
  if (req.method === 'HEAD' || size === 0) {
    res.end();
    return;
  }
  if (body instanceof Uint8Array) {
    res.end(body.subarray(start, end + 1));
    return;
  }
  const stream = createReadStream(body.path, { start, end });
  stream.on('error', () => res.destroy());
  stream.pipe(res);
}

/**
 * Decodes a URL path; `undefined` for a malformed escape (`/%`) or a NUL byte.
 * @param {string} pathname
 */
function decodePath(pathname) {
  try {
    const decoded = decodeURIComponent(pathname);
    return decoded.includes('\0') ? undefined : decoded;
  } catch {
    return undefined;
  }
}

/**
 * Maps a request to a file inside `root`, or says why not. Directories resolve to their
 * `index.html` when `index` is set.
 * @param {string} root an absolute, real path (see `realRoot`)
 * @param {string} rawUrl the request's URL (path and query)
 * @param {{ index?: boolean }} [options]
 * @returns {Promise<{ status: 400 } | { status: 404 } | { status: 200, file: string, size: number }>}
 */
export async function resolveInside(root, rawUrl, options = {}) {
  const pathname = (rawUrl.split('?')[0] ?? '').split('#')[0] ?? '';
  const decoded = decodePath(pathname);
  if (decoded === undefined) return { status: 400 };
  let file = resolve(root, `.${sep}${decoded}`);
  if (!isInside(root, file)) return { status: 404 };
  let info = await stat(file).catch(() => undefined);
  if (info?.isDirectory() && options.index) {
    file = join(file, 'index.html');
    info = await stat(file).catch(() => undefined);
  }
  if (!info?.isFile()) return { status: 404 };
  // Symlinks are followed only while they stay inside the folder.
  const real = await realpath(file).catch(() => undefined);
  if (!real || !isInside(root, real)) return { status: 404 };
  return { status: 200, file: real, size: info.size };
}

/** @param {string} dir */
export const realRoot = (dir) => realpath(resolve(dir));

/**
 * @param {string} root
 * @param {string} path
 */
const isInside = (root, path) => path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);

/** Content types for what Lantern serves. */
const CONTENT_TYPES = /** @type {Record<string, string>} */ ({
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
});

/** @param {string} path */
export function contentType(path) {
  const dot = path.lastIndexOf('.');
  return (dot >= 0 && CONTENT_TYPES[path.slice(dot).toLowerCase()]) || 'application/octet-stream';
}
