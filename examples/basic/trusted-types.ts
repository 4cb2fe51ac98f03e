/**
 * This page is served with Lantern's strict CSP, which requires Trusted Types for script URLs
 * (`require-trusted-types-for 'script'`). Starting Lantern's worker is such a sink, so a page
 * under that CSP needs a policy; this default one lets same-origin scripts through and refuses
 * any other. A page served without that CSP does not need this file.
 */
interface TrustedTypesFactory {
  createPolicy(name: 'default', rules: { createScriptURL(url: string): string }): unknown;
}

const factory = (globalThis as { trustedTypes?: TrustedTypesFactory }).trustedTypes;
factory?.createPolicy('default', {
  createScriptURL(url) {
    const parsed = new URL(url, location.href);
    if (parsed.origin !== location.origin) throw new TypeError('Only this page\'s own scripts may be loaded.');
    return parsed.href;
  },
});
