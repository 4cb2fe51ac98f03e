import { copyFile, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultClientConditions, defineConfig, type Plugin } from 'vite';
import { securityHeaders } from '../scripts/headers.mjs';
import { sharedDir } from './shared-dir.ts';

/**
 * The benchmark page is built separately (dist-bench/) so that transformers.js and its own
 * ORT copy never enter the shipped app. Models are published in two layouts: Lantern's
 * catalog (/models/) and a transformers.js folder (/models-hf/) for the baseline.
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'dist-bench');
const SHARED = sharedDir(ROOT);

async function exists(path: string) {
  return stat(path).then(() => true, () => false);
}
async function put(rel: string, data: string | Buffer) {
  await mkdir(dirname(join(OUT, rel)), { recursive: true });
  await writeFile(join(OUT, rel), data);
}

function benchModels(): Plugin {
  return {
    name: 'bench-models',
    apply: 'build',
    async closeBundle() {
      const spam = join(ROOT, 'models/spam-filter');
      const files = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_quantized.onnx'];
      for (const f of files) await put(`models/spam-filter/${f}`, await readFile(join(spam, f)));
      const config = JSON.parse(await readFile(join(spam, 'config.json'), 'utf8'));
      const labels = Object.values(config.id2label as Record<string, string>);
      const catalog: { id: string; version: string; title: string; task: string; batch: string; labels: string[]; sizeBytes: number; files: Record<string, string> }[] = [{
        id: 'spam-filter', version: config.lantern.version, title: 'Spam filter', task: 'text-classification', batch: 'dynamic', labels,
        sizeBytes: (await stat(join(spam, 'onnx/model_quantized.onnx'))).size,
        files: { config: 'spam-filter/config.json', onnx: 'spam-filter/onnx/model_quantized.onnx', tokenizer: 'spam-filter/tokenizer.json', tokenizerConfig: 'spam-filter/tokenizer_config.json' },
      }];
      // transformers.js maps config.model_type to a model class; the graph takes BERT's inputs.
      for (const f of files.slice(1)) await put(`models-hf/spam-filter/${f}`, await readFile(join(spam, f)));
      await put('models-hf/spam-filter/config.json', JSON.stringify({ ...config, model_type: 'bert' }));

      const shuffle = SHARED && join(SHARED, 'models/shufflenet-v2-int8');
      if (SHARED && shuffle && (await exists(join(shuffle, 'model.onnx')))) {
        const names = JSON.parse(await readFile(join(shuffle, 'labels.json'), 'utf8')) as string[];
        const id2label = Object.fromEntries(names.map((n, i) => [String(i), n]));
        await put('models/shufflenet/config.json', JSON.stringify({ id2label, lantern: { id: 'shufflenet', version: '1.0.0', task: 'image-classification', output: 'logits', batch: 'fixed' } }));
        await put('models/shufflenet/preprocessor_config.json', JSON.stringify({ size: { shortest_edge: 256 }, do_center_crop: true, crop_size: 224, do_normalize: true, image_mean: [0.485, 0.456, 0.406], image_std: [0.229, 0.224, 0.225] }));
        await mkdir(join(OUT, 'models/shufflenet/onnx'), { recursive: true });
        await copyFile(join(shuffle, 'model.onnx'), join(OUT, 'models/shufflenet/onnx/model.onnx'));
        await copyFile(join(SHARED, 'images/cat.jpg'), join(OUT, 'cat.jpg'));
        catalog.push({
          id: 'shufflenet', version: '1.0.0', title: 'ShuffleNet V2 int8', task: 'image-classification', batch: 'fixed', labels: names,
          sizeBytes: (await stat(join(shuffle, 'model.onnx'))).size,
          files: { config: 'shufflenet/config.json', onnx: 'shufflenet/onnx/model.onnx', preprocessor: 'shufflenet/preprocessor_config.json' },
        });
      }
      await put('models/catalog.json', JSON.stringify({ models: catalog.map((m) => ({ ...m, samples: [] })) }));
    },
  };
}

export default defineConfig({
  root: join(ROOT, 'bench'),
  // Not minified: transformers.js looks classes up by their names, which minification renames.
  build: { outDir: OUT, emptyOutDir: true, target: 'es2022', chunkSizeWarningLimit: 4096, minify: false },
  worker: { format: 'es' },
  // As in the app (vite.config.ts): ORT's glue as a file of its own (workers/ort.ts).
  resolve: { conditions: ['onnxruntime-web-use-extern-wasm', ...defaultClientConditions] },
  plugins: [benchModels()],
  preview: { headers: securityHeaders({ dev: false }) },
  server: { headers: securityHeaders({ dev: true }) },
});
