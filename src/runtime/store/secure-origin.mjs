// @ts-check
/**
 * Which origins may serve models: `https:`, or plain `http:` only on loopback, where nobody
 * can sit between the device and the server (a publisher testing with `model:serve`). One rule
 * for the registry's OriginPolicy (net.ts) and the CSP connect-src (scripts/headers.mjs); plain
 * JS so that the Node production server can import it too.
 */

/** @param {string} origin */
export function isAcceptableModelOrigin(origin) {
  const url = new URL(origin);
  if (url.protocol === 'https:') return true;
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname) || url.hostname.endsWith('.localhost');
  return url.protocol === 'http:' && loopback;
}
