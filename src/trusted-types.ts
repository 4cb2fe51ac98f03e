/**
 * The CSP requires Trusted Types for every script sink (`require-trusted-types-for 'script'`,
 * scripts/headers.mjs), so an injected string can never become script or markup. The only
 * script URLs that reach a sink are the app's own: its inference worker, ORT's helper threads
 * (started from that worker's bundle) and the service worker that workbox-window registers.
 * This default policy lets those same-origin URLs through and refuses any other; HTML and
 * script strings have no rule here, so the browser blocks them.
 * Imported first by every entry point that runs under that CSP (page and worker). A module (the
 * `export {}` at the end), not a script: a script's declarations are global, and the worker
 * entry's .d.ts would hand `factory` and `TrustedTypesFactory` to every library consumer.
 */
interface TrustedTypesFactory {
  createPolicy(name: 'default', rules: { createScriptURL(url: string): string }): unknown;
}

const factory = (globalThis as { trustedTypes?: TrustedTypesFactory }).trustedTypes;
factory?.createPolicy('default', {
  createScriptURL(url) {
    const parsed = new URL(url, globalThis.location.href);
    if (parsed.origin !== globalThis.location.origin) throw new TypeError('Only the app\'s own scripts may be loaded.');
    return parsed.href;
  },
});

export {};
