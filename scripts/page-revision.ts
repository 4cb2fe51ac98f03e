import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import type { Plugin } from 'vite';
import { allowedOriginsOf, securityHeaders } from './headers.mjs';
import type { PrecacheEntry } from './offline-files.ts';

/**
 * The service worker keeps a precached page as it first fetched it, headers included, and fetches
 * it again only when its revision changes; workbox computes that from the file's bytes. A page's
 * Content-Security-Policy is in its headers, and a deployment that allows a new model origin
 * (LANTERN_ALLOWED_ORIGINS, registry-config.json) changes no byte of index.html: an installed app
 * kept the old connect-src and refused the new origin, while a new visitor was served the new one.
 * So a page's revision also covers the security headers this build's pages are served with
 * (scripts/serve.mjs sends exactly these; README, "Serving Lantern yourself"): when they change,
 * the app offers its update as for new code, and the updated page comes with the new headers.
 */
export function pageRevision(): { plugin: Plugin; manifestTransform: (entries: PrecacheEntry[]) => Promise<{ manifest: PrecacheEntry[] }> } {
  let outDir = '';
  const plugin: Plugin = {
    name: 'lantern-page-revision',
    apply: 'build',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
    },
  };
  const manifestTransform = async (entries: PrecacheEntry[]) => {
    const headers = JSON.stringify(securityHeaders({ dev: false, connectSrc: await allowedOriginsOf(outDir) }));
    const manifest = entries.map((entry) => (entry.url.endsWith('.html') && entry.revision
      ? { ...entry, revision: createHash('sha256').update(`${entry.revision}\n${headers}`).digest('hex').slice(0, 32) }
      : entry));
    return { manifest };
  };
  return { plugin, manifestTransform };
}
