import { defineConfig } from 'vite';

export default defineConfig({
  // ORT's WASM threads start from the worker file itself: the worker must be an ES module.
  worker: { format: 'es' },
  build: { target: 'es2022', rollupOptions: { input: ['index.html', 'dev.html'] } },
  // Keep Lantern out of the dev pre-bundler, which would break its `new URL(..., import.meta.url)` worker.
  optimizeDeps: { exclude: ['lantern', 'onnxruntime-web'] },
});
