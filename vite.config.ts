import { execSync } from 'node:child_process';
import { defaultClientConditions, defineConfig } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';
import { builtinModels } from './scripts/models-plugin.ts';
import { offlineFiles } from './scripts/offline-files.ts';
import { pageRevision } from './scripts/page-revision.ts';
import { precompressPlugin } from './scripts/precompress.ts';
import { securityHeaders } from './scripts/headers.mjs';
import { SCREENSHOTS } from './scripts/screenshots.ts';
import { ORT_CACHE } from './src/runtime/ort-cache.ts';
import { ORT_FILE, ortFileOrNull } from './workers/ort-offline.ts';
import { handleShareTarget, matchShareTarget, SHARE_ACTION } from './src/share-target.ts';

/** Shown in the app so a user can tell which build answers; overridable for tests. */
function buildId(): string {
  if (process.env.LANTERN_BUILD_ID) return process.env.LANTERN_BUILD_ID;
  try {
    return execSync('git rev-parse --short HEAD', { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
  } catch {
    return 'dev';
  }
}

/** What a device stores to work offline, with sizes: precache list, ORT builds, built-in models. */
const offline = offlineFiles();
/** A precached page's revision follows the headers it is served with, not only its bytes. */
const pages = pageRevision();

export default defineConfig({
  plugins: [
    builtinModels(),
    // After the models plugin: it reads the built-in catalog that one emits.
    offline.plugin,
    pages.plugin,
    VitePWA({
      // The page decides when a new version takes over (workbox-window, src/app/pwa.ts):
      // never while a classification is running, and only when the user accepts.
      registerType: 'prompt',
      injectRegister: false,
      manifest: {
        name: 'Lantern — on-device classification',
        short_name: 'Lantern',
        description: 'Classifies images and text on your device, offline.',
        // A stable identity, so a later start_url change does not make it a different app.
        id: '/',
        start_url: '/',
        scope: '/',
        display: 'standalone',
        background_color: '#0f172a',
        theme_color: '#1f2937',
        icons: [
          { src: 'icons/icon-192.png', sizes: '192x192', type: 'image/png' },
          { src: 'icons/icon-512.png', sizes: '512x512', type: 'image/png' },
          { src: 'icons/maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
        ],
        // Real captures of the app, made by e2e/screenshots.spec.ts (UPDATE_SCREENSHOTS=1).
        screenshots: SCREENSHOTS.map(({ file, width, height, formFactor, label }) => ({ src: `screenshots/${file}`, sizes: `${width}x${height}`, type: 'image/png', form_factor: formFactor, label })),
        // Entry points; src/app/launch.ts reads what each one puts in the URL.
        shortcuts: [
          { name: 'Classify an image', short_name: 'Image', url: '/?task=image-classification', icons: [{ src: 'icons/icon-192.png', sizes: '192x192' }] },
          { name: 'Classify text', short_name: 'Text', url: '/?task=text-classification', icons: [{ src: 'icons/icon-192.png', sizes: '192x192' }] },
        ],
        file_handlers: [
          { action: '/?task=image-classification', accept: { 'image/*': ['.png', '.jpg', '.jpeg', '.gif', '.webp', '.bmp', '.avif'] } },
        ],
        // Images, text and links. A manifest has one share target, and files need a multipart POST,
        // so text comes by POST too: the service worker answers it (src/share-target.ts, the
        // runtimeCaching route below) with a redirect to a URL the app reads.
        share_target: {
          action: SHARE_ACTION,
          method: 'POST',
          enctype: 'multipart/form-data',
          params: { title: 'title', text: 'text', url: 'url', files: [{ name: 'image', accept: ['image/*', '.png', '.jpg', '.jpeg', '.webp', '.gif', '.avif'] }] },
        },
      },
      workbox: {
        // App shell and worker. Models live in the IndexedDB store, not here. ORT's wasm builds
        // are not precached: a device needs one of the two (WASM-only or WebGPU), chosen in the
        // worker, which also puts it in the cache this route serves (workers/ort-offline.ts).
        // The trust store and registry config are fetched network-first by the app (a revocation
        // must not wait for an app update); it keeps their last good copy for offline starts.
        globPatterns: ['**/*.{html,js,css,svg,png,json,webmanifest}'],
        // Screenshots are for the install dialog, which fetches them itself: not worth a first visit's bytes.
        globIgnores: ['models/**', 'screenshots/**', 'trust-store.json', 'registry-config.json'],
        // Writes offline-files.json from this very list (with sizes) and precaches it too.
        manifestTransforms: [pages.manifestTransform, offline.manifestTransform],
        runtimeCaching: [{
          urlPattern: ORT_FILE,
          handler: 'CacheFirst',
          // Only ORT's files: a captive portal's page (status 200) is served, not kept.
          options: { cacheName: ORT_CACHE, plugins: [{ cacheWillUpdate: ortFileOrNull }] },
        }, {
          // Workbox writes these two functions into sw.js from their source (src/share-target.ts
          // says why they are self-contained); a script of our own would need importScripts.
          urlPattern: matchShareTarget,
          handler: handleShareTarget,
          method: 'POST',
        }],
        navigateFallback: 'index.html',
        navigateFallbackDenylist: [/^\/models\//],
        cleanupOutdatedCaches: true,
        // One self-contained sw.js: a separate workbox runtime would be loaded with
        // importScripts(string), which the CSP's Trusted Types requirement refuses.
        inlineWorkboxRuntime: true,
      },
    }),
    // Last: compresses what the others wrote (.br/.gz next to each file, for serve.mjs).
    precompressPlugin(),
  ],
  define: { __BUILD_ID__: JSON.stringify(buildId()) },
  // ORT's "extern wasm" entries: its glue stays a file of its own (workers/ort.ts says why).
  resolve: { conditions: ['onnxruntime-web-use-extern-wasm', ...defaultClientConditions] },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  // ORT's threaded wasm starts its helper threads from the worker bundle itself: an ES
  // worker is required (with the default iife format numThreads > 1 hangs silently).
  worker: { format: 'es' },
  build: {
    target: 'es2022',
    sourcemap: false,
    chunkSizeWarningLimit: 2048,
    // Vite's polyfill for <link rel="modulepreload"> (~0.3 KB of the first download) serves only
    // Firefox 114 and Safari 16.4 of the browsers Lantern runs on (README, Browser support), and
    // there a lazy chunk is then fetched when imported instead of ahead: slower, never broken.
    modulePreload: { polyfill: false },
    // Everything the first screen imports statically is one chunk. Without this group, code the
    // lazy chunks share with it (zod, the store) is split into extra small start-up chunks that
    // compress worse, and the first download grows by what the lazy chunks saved.
    rolldownOptions: { output: { codeSplitting: { groups: [{ name: 'start', tags: ['$initial'] }] } } },
  },
  server: { headers: securityHeaders({ dev: true }) },
  preview: { headers: securityHeaders({ dev: false }) },
  optimizeDeps: { exclude: ['onnxruntime-web'] },
});
