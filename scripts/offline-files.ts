import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Plugin } from 'vite';
import { OFFLINE_FILES, type OfflineFiles, type SizedFile } from '../src/app/offline-files.ts';
import { parseCatalog } from '../src/runtime/store/catalog.ts';
import { BUILTIN_CATALOG } from '../src/runtime/store/config.ts';
import { ORT_BUILD_FILES } from '../workers/ort-offline.ts';

/** What workbox hands a manifest transform (its `ManifestTransform` type, structurally). */
interface PrecacheEntry {
  url: string;
  revision: string | null;
  size: number;
}

/**
 * Writes `offline-files.json`: everything a device stores to work offline, with sizes, so the app
 * can say "X of Y MB" (src/app/offline-progress.ts) without a number anyone maintains. Each part
 * comes from the build itself:
 * - the app shell: the service worker's precache list, which workbox hands with sizes to
 *   `manifestTransform` (vite.config.ts passes it to vite-plugin-pwa);
 * - ORT's glue and wasm for each build, from the bundle (the worker caches one at run time);
 * - the built-in models, from the signed catalog the models plugin emitted.
 * The file goes into the precache itself: an offline start can still tell whether it is complete.
 */
export function offlineFiles(): { plugin: Plugin; manifestTransform: (entries: PrecacheEntry[]) => Promise<{ manifest: PrecacheEntry[] }> } {
  let outDir = '';
  let fromBundle: Omit<OfflineFiles, 'precache'> | undefined;
  let generating = false;

  const plugin: Plugin = {
    name: 'lantern-offline-files',
    apply: 'build',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
    },
    renderStart() {
      generating = true;
    },
    generateBundle(_options, bundle) {
      const assets = new Map<string, Uint8Array | string>();
      for (const file of Object.values(bundle)) if (file.type === 'asset') assets.set(file.fileName, file.source);
      const size = (source: Uint8Array | string) => (typeof source === 'string' ? Buffer.byteLength(source) : source.byteLength);
      const ortBuild = (pattern: RegExp): SizedFile[] => {
        const files = [...assets].filter(([name]) => pattern.test(`/${name}`)).map(([url, source]) => ({ url, size: size(source) }));
        // Exactly its glue and its wasm: anything else means ORT's files were renamed, and the size would be wrong.
        if (files.length !== 2 || !files.some((f) => f.url.endsWith('.mjs')) || !files.some((f) => f.url.endsWith('.wasm'))) {
          throw new Error(`offline-files: expected one .mjs and one .wasm matching ${pattern}, found ${files.map((f) => f.url).join(', ') || 'none'}`);
        }
        return files;
      };
      const catalog = assets.get(BUILTIN_CATALOG);
      if (catalog === undefined) throw new Error(`offline-files: ${BUILTIN_CATALOG} is not in the bundle (the built-in models plugin must come first)`);
      fromBundle = {
        ort: { wasm: ortBuild(ORT_BUILD_FILES.wasm), webgpu: ortBuild(ORT_BUILD_FILES.webgpu) },
        // One release per built-in model: what the app installs on first start.
        models: parseCatalog(typeof catalog === 'string' ? new TextEncoder().encode(catalog) : catalog).releases.map(({ id, size }) => ({ id, size })),
      };
    },
  };

  const manifestTransform = async (entries: PrecacheEntry[]) => {
    if (!fromBundle) {
      // The bundle's generation started and failed (a plugin threw): vite-plugin-pwa still
      // generates the service worker as the build closes, and an error thrown here would replace
      // the real one, the cause the user must see. The build fails with that one.
      if (generating) return { manifest: entries };
      throw new Error('offline-files: the service worker was generated before the bundle');
    }
    const list: OfflineFiles = { precache: entries.map(({ url, size }) => ({ url, size })), ...fromBundle };
    const bytes = new TextEncoder().encode(`${JSON.stringify(list, null, 1)}\n`);
    await writeFile(join(outDir, OFFLINE_FILES), bytes);
    const revision = createHash('sha256').update(bytes).digest('hex').slice(0, 32);
    return { manifest: [...entries, { url: OFFLINE_FILES, revision, size: bytes.byteLength }] };
  };

  return { plugin, manifestTransform };
}
