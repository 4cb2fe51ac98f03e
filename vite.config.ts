import { defineConfig } from 'vite';
import { builtinModels } from './scripts/models-plugin.ts';
import { securityHeaders } from './scripts/headers.mjs';

export default defineConfig({
  plugins: [builtinModels()],
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  // ORT's threaded wasm starts its helper threads from the worker bundle itself: an ES
  // worker is required (with the default iife format numThreads > 1 hangs silently).
  worker: { format: 'es' },
  build: { target: 'es2022', sourcemap: false, chunkSizeWarningLimit: 2048 },
  server: { headers: securityHeaders({ dev: true }) },
  preview: { headers: securityHeaders({ dev: false }) },
  optimizeDeps: { exclude: ['onnxruntime-web'] },
});
