/**
 * The HTTP headers Lantern needs from any server (documented in the README for deployers).
 * Cross-origin isolation (COOP + COEP) enables SharedArrayBuffer, hence multi-threaded WASM.
 * The CSP allows WebAssembly compilation ('wasm-unsafe-eval') and nothing eval-like.
 * Plain JS so that both vite.config.ts and the Node production server (scripts/serve.mjs) use it.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isAcceptableModelOrigin } from '../src/runtime/store/secure-origin.mjs';

/**
 * A model server's origin, normalised, held to the same rule as the registry's OriginPolicy
 * (src/runtime/store/secure-origin.mjs): for the CSP connect-src and the build's allowed origins.
 * @param {string} origin
 */
export function modelOrigin(origin) {
  // "null": not a URL, or one without an origin (mailto:, data:…).
  const normalised = URL.canParse(origin) ? new URL(origin).origin : 'null';
  if (normalised === 'null') throw new Error(`${origin} is not an origin such as https://models.example.org.`);
  if (!isAcceptableModelOrigin(normalised)) throw new Error(`${normalised} is not an acceptable model origin: use https (plain http only for localhost).`);
  return normalised;
}

/**
 * The model origins a built app's `registry-config.json` allows (LANTERN_ALLOWED_ORIGINS at build
 * time, or a deployer's edit of that file). The CSP connect-src of the app's pages must allow the
 * same: taken from this one file, the two cannot disagree (scripts/serve.mjs), and a precached
 * page is fetched again when they change (scripts/page-revision.ts). None for a folder without it.
 * @param {string} dir a built app folder
 * @returns {Promise<string[]>}
 */
export async function allowedOriginsOf(dir) {
  const path = join(dir, 'registry-config.json');
  const text = await readFile(path, 'utf8').catch((/** @type {NodeJS.ErrnoException} */ error) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (text === undefined) return [];
  try {
    const origins = JSON.parse(text).allowedOrigins ?? [];
    if (!Array.isArray(origins)) throw new Error('allowedOrigins is not a list of origins.');
    return origins.map((origin) => modelOrigin(String(origin)));
  } catch (error) {
    throw new Error(`${path}: ${/** @type {Error} */ (error).message}`);
  }
}

/** @param {{ dev: boolean, connectSrc?: string[] }} options */
export function contentSecurityPolicy(options) {
  const connect = ["'self'", ...(options.connectSrc ?? []).map(modelOrigin)];
  const script = ["'self'", "'wasm-unsafe-eval'"];
  const style = ["'self'"];
  // Vite's dev server injects an inline HMR client and styles, and talks over a websocket.
  if (options.dev) {
    script.push("'unsafe-inline'");
    style.push("'unsafe-inline'");
    connect.push('ws:');
  }
  return [
    "default-src 'self'",
    `script-src ${script.join(' ')}`,
    "worker-src 'self'",
    `connect-src ${connect.join(' ')}`,
    "img-src 'self' blob: data:",
    "media-src 'self' blob:",
    `style-src ${style.join(' ')}`,
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    // The app posts no forms. The share target's POST (src/share-target.ts) is the browser's own
    // navigation, not a form of a page under this policy, so this does not stop it.
    "form-action 'none'",
    "frame-ancestors 'none'",
    "manifest-src 'self'",
    // Script sinks take only Trusted Types, made by the one default policy (src/trusted-types.ts).
    // Not in dev: Vite's error overlay writes innerHTML.
    ...(options.dev ? [] : ["require-trusted-types-for 'script'", 'trusted-types default']),
  ].join('; ');
}

/**
 * What a subresource needs of those (an image, a style sheet, JSON, wasm, a model file): the
 * Cross-Origin-Resource-Policy that COEP asks of everything the page loads, nosniff, and the
 * referrer policy (a style sheet's own requests follow it). The rest governs documents and
 * workers only, and any JavaScript file may start one (the inference worker, the service worker,
 * ORT's threads): sent with every file, it is ~560 bytes of headers per response that nothing
 * reads, ~14 KB of a first visit (scripts/serve.mjs).
 */
const SUBRESOURCE_HEADERS = ['Cross-Origin-Resource-Policy', 'X-Content-Type-Options', 'Referrer-Policy'];

/**
 * What only a document reads: the opener policy (it groups browsing contexts) and the permissions
 * policy (a worker runs under its document's). A script gets the rest, ~110 bytes fewer per
 * response, ~3 KB of a first visit.
 */
const DOCUMENT_ONLY_HEADERS = ['Cross-Origin-Opener-Policy', 'Permissions-Policy'];

/**
 * The headers of one response: all of `headers` for a page or an SVG image (opened on its own,
 * an SVG is a document that can run script), all but the document-only ones for a script (any
 * may start a worker), the subresource ones for anything else.
 * @param {Record<string, string>} headers securityHeaders(...)
 * @param {string} contentType
 * @returns {Record<string, string>}
 */
export function headersFor(headers, contentType) {
  if (/^text\/html|^image\/svg\+xml/.test(contentType)) return headers;
  const kept = /javascript/.test(contentType) ? (name) => !DOCUMENT_ONLY_HEADERS.includes(name) : (name) => SUBRESOURCE_HEADERS.includes(name);
  return Object.fromEntries(Object.entries(headers).filter(([name]) => kept(name)));
}

/**
 * @param {{ dev: boolean, connectSrc?: string[] }} options
 * @returns {Record<string, string>}
 */
export function securityHeaders(options) {
  return {
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Embedder-Policy': 'require-corp',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'Content-Security-Policy': contentSecurityPolicy(options),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Permissions-Policy': 'camera=(self), microphone=(), geolocation=()',
  };
}
