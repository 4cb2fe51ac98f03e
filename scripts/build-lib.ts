/**
 * Builds the runtime package (`npm run build:lib`, run by `npm pack`): ES modules in dist-lib/
 * for each entry of package.json's `exports`, with every dependency left as a bare import so
 * that the app embedding Lantern bundles ONE onnxruntime-web (its own), and `.d.ts` files from
 * tsc. The app's own build (vite.config.ts) does not use this: it compiles the sources directly.
 */
import { execFileSync } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { rolldown } from 'rolldown';

const ROOT = join(import.meta.dirname, '..');
const OUT = join(ROOT, 'dist-lib');
/** Where the worker module sits relative to default-worker.ts in the sources, and in the package. */
const SOURCE_WORKER = '../../workers/inference.worker.ts';
const PACKAGE_WORKER = './worker.js';
/** The publisher CLI, shipped as the package's `lantern-model` command. */
const CLI_SOURCE = 'scripts/model-cli.ts';

export const ENTRIES = {
  index: 'src/runtime/index.ts',
  worker: 'workers/inference.worker.ts',
  store: 'src/runtime/store/index.ts',
  metrics: 'src/runtime/metrics/index.ts',
  field: 'src/runtime/field/index.ts',
  release: 'src/runtime/release/index.ts',
  updates: 'src/runtime/release/updates.ts',
  reasons: 'src/runtime/store/reason-catalog.ts',
};

const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
const dependencies = Object.keys(pkg.dependencies);

await rm(OUT, { recursive: true, force: true });
const bundle = await rolldown({
  cwd: ROOT,
  input: ENTRIES,
  platform: 'browser',
  external: (id) => dependencies.some((d) => id === d || id.startsWith(`${d}/`)),
  plugins: [{
    // In the package the worker is dist-lib/worker.js, next to index.js: the `new Worker(new URL(
    // './worker.js', import.meta.url))` left in the output is the pattern Vite, webpack and
    // Parcel recognise, so the embedding app's bundler builds the worker with its own deps.
    name: 'package-worker-url',
    load: {
      filter: { id: /[\\/]default-worker\.ts$/ },
      async handler(id) {
        const code = await readFile(id, 'utf8');
        if (!code.includes(SOURCE_WORKER)) throw new Error(`default-worker.ts no longer points at ${SOURCE_WORKER}`);
        return code.replace(SOURCE_WORKER, PACKAGE_WORKER);
      },
    },
  }],
});
await bundle.write({ dir: OUT, format: 'es', entryFileNames: '[name].js', chunkFileNames: 'chunks/[name]-[hash].js' });
await bundle.close();

// The publisher CLI (`lantern-model`, package.json's `bin`) for Node, so that an app that installed
// the package can sign its own models: the package's dependencies stay imports, the rest (semver,
// the store's sources) is bundled. In the sources it runs through tsx; here through node.
const cli = await rolldown({
  cwd: ROOT,
  input: { 'lantern-model': CLI_SOURCE },
  platform: 'node',
  external: (id) => id.startsWith('node:') || dependencies.some((d) => id === d || id.startsWith(`${d}/`)),
  plugins: [{
    name: 'node-hashbang',
    load: {
      filter: { id: /[\\/]model-cli\.ts$/ },
      async handler(id) {
        return (await readFile(id, 'utf8')).replace(/^#!.*/, '#!/usr/bin/env node');
      },
    },
  }],
});
await cli.write({ dir: join(OUT, 'cli'), format: 'es', entryFileNames: '[name].js', chunkFileNames: '[name]-[hash].js' });
await cli.close();

execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.lib.json')], { stdio: 'inherit' });
console.log(`Built the runtime package into ${OUT}`);
