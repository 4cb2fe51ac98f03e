import { createHash } from 'node:crypto';
import { stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Plugin } from 'vite';
import { OFFLINE_FILES, type OfflineFiles, type SizedFile } from '../src/app/offline-files.ts';
import { parseCatalog } from '../src/runtime/store/catalog.ts';
import { BUILTIN_CATALOG } from '../src/runtime/store/config.ts';
import { ORT_BUILD_FILES } from '../workers/ort-offline.ts';
import { servedSize } from './precompress.ts';

/** What workbox hands a manifest transform (its `ManifestTransform` type, structurally). */
export interface PrecacheEntry {
  url: string;
  revision: string | null;
  size: number;
}

/**
 * Writes `offline-files.json`: everything a device stores to work offline, with what each costs to
 * download, so the app can say "X of Y MB" (src/app/offline-progress.ts) and ask on a metered
 * connection with the size the user pays for, without a number anyone maintains. Each part comes
 * from the build itself:
 * - the app shell: the service worker's precache list, which workbox hands to `manifestTransform`
 *   (vite.config.ts passes it to vite-plugin-pwa);
 * - ORT's glue and wasm for each build, from the bundle (the worker caches one at run time);
 * - the built-in models, from the signed catalog the models plugin emitted.
 * Shell and ORT files count as a host serving the build's brotli copies sends them
 * (`servedSize`; README, "Serving the build"): ORT's wasm is a sixth of its stored size. Models
 * count their signed (stored) size: their files of one chunk come compressed too, a little less.
 * The file goes into the precache itself: an offline start can still tell whether it is complete.
 */
export function offlineFiles(): { plugin: Plugin; manifestTransform: (entries: PrecacheEntry[]) => Promise<{ manifest: PrecacheEntry[] }> } {
  let outDir = '';
  /** ORT's files per build (sized once written) and the built-in models, from the bundle. */
  let fromBundle: { ort: Record<keyof OfflineFiles['ort'], { url: string }[]>; models: OfflineFiles['models'] } | undefined;
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
      const ortBuild = (pattern: RegExp): { url: string }[] => {
        const files = [...assets.keys()].filter((name) => pattern.test(`/${name}`)).map((url) => ({ url }));
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
    const served = (files: readonly { url: string }[]): Promise<SizedFile[]> => Promise.all(files.map(async ({ url }) => ({ url, size: await servedSize(join(outDir, url)) })));
    // ORT's wasm is measured as it arrives, in decoded bytes (workers/ort.ts): it says how many there are.
    const ortServed = async (files: readonly { url: string }[]): Promise<SizedFile[]> =>
      Promise.all((await served(files)).map(async (file) => (file.url.endsWith('.wasm') ? { ...file, storedSize: (await stat(join(outDir, file.url))).size } : file)));
    const { ort, models } = fromBundle;
    // All at once: brotli at its best quality takes about a minute for each ORT wasm on a fresh machine.
    const [precache, wasm, webgpu] = await Promise.all([served(entries), ortServed(ort.wasm), ortServed(ort.webgpu)]);
    const list: OfflineFiles = { precache, ort: { wasm, webgpu }, models };
    const bytes = new TextEncoder().encode(`${JSON.stringify(list, null, 1)}\n`);
    await writeFile(join(outDir, OFFLINE_FILES), bytes);
    const revision = createHash('sha256').update(bytes).digest('hex').slice(0, 32);
    return { manifest: [...entries, { url: OFFLINE_FILES, revision, size: bytes.byteLength }] };
  };

  return { plugin, manifestTransform };
}
