/**
 * The HTTP headers Lantern needs from any server (documented in the README for deployers).
 * Cross-origin isolation (COOP + COEP) enables SharedArrayBuffer, hence multi-threaded WASM.
 * The CSP allows WebAssembly compilation ('wasm-unsafe-eval') and nothing eval-like.
 * Plain JS so that both vite.config.ts and the Node production server (scripts/serve.mjs) use it.
 */

/** @param {{ dev: boolean, connectSrc?: string[] }} options */
export function contentSecurityPolicy(options) {
  const connect = ["'self'", ...(options.connectSrc ?? [])];
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
    "form-action 'none'",
    "frame-ancestors 'none'",
    "manifest-src 'self'",
  ].join('; ');
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
