import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { Plugin } from 'vite';

/**
 * Ships the built-in models (models/<id>/) with the app under /models/, with a generated
 * catalog.json. Only what the runtime needs is published: config, preprocessor/tokenizer,
 * the quantized ONNX file and the samples — not recipes or evaluation sets.
 */
const MODELS_DIR = new URL('../models/', import.meta.url).pathname;

interface Published {
  catalog: unknown;
  files: Map<string, string>; // url path under models/ -> absolute file path
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(() => true, () => false);
}

export async function collectBuiltinModels(dir = MODELS_DIR): Promise<Published> {
  const files = new Map<string, string>();
  const models: unknown[] = [];
  const entries = (await readdir(dir, { withFileTypes: true })).filter((e) => e.isDirectory() && !e.name.startsWith('_')).map((e) => e.name).sort();
  for (const id of entries) {
    const folder = join(dir, id);
    const configPath = join(folder, 'config.json');
    if (!(await exists(configPath))) continue;
    const config = JSON.parse(await readFile(configPath, 'utf8')) as {
      id2label: Record<string, string>;
      lantern: { id: string; version: string; title?: string; task: string; batch?: string };
    };
    const publish = async (rel: string): Promise<string | undefined> => {
      const abs = join(folder, rel);
      if (!(await exists(abs))) return undefined;
      files.set(`${id}/${rel}`, abs);
      return `${id}/${rel}`;
    };
    const onnxRel = (await exists(join(folder, 'onnx/model_quantized.onnx'))) ? 'onnx/model_quantized.onnx' : 'onnx/model.onnx';
    const onnx = await publish(onnxRel);
    if (!onnx) continue;
    const samplesDir = join(folder, 'samples');
    const samples = (await exists(samplesDir)) ? (await readdir(samplesDir)).sort() : [];
    const labels = Object.keys(config.id2label).sort((a, b) => Number(a) - Number(b)).map((k) => config.id2label[k]!);
    models.push({
      id: config.lantern.id,
      version: config.lantern.version,
      title: config.lantern.title ?? config.lantern.id,
      task: config.lantern.task,
      batch: config.lantern.batch ?? 'dynamic',
      labels,
      sizeBytes: (await stat(join(folder, onnxRel))).size,
      files: {
        config: await publish('config.json'),
        onnx,
        preprocessor: await publish('preprocessor_config.json'),
        tokenizer: await publish('tokenizer.json'),
        tokenizerConfig: await publish('tokenizer_config.json'),
      },
      samples: await Promise.all(samples.map(async (name) => ({
        name: name.replace(/\.[^.]+$/, ''),
        url: await publish(relative(folder, join(samplesDir, name))),
        kind: name.endsWith('.txt') ? 'text' : 'image',
      }))),
    });
  }
  return { catalog: { models }, files };
}

const TYPES: Record<string, string> = { json: 'application/json', onnx: 'application/octet-stream', png: 'image/png', jpg: 'image/jpeg', txt: 'text/plain; charset=utf-8' };

export function builtinModels(): Plugin {
  let published: Promise<Published> | undefined;
  const load = () => (published ??= collectBuiltinModels());
  return {
    name: 'lantern-builtin-models',
    configureServer(server) {
      server.middlewares.use(async (req, res, next) => {
        const url = (req.url ?? '').split('?')[0]!;
        if (!url.startsWith('/models/')) return next();
        const { catalog, files } = await load();
        const path = url.slice('/models/'.length);
        if (path === 'catalog.json') {
          res.setHeader('Content-Type', 'application/json');
          return res.end(JSON.stringify(catalog));
        }
        const file = files.get(path);
        if (!file) return next();
        res.setHeader('Content-Type', TYPES[path.split('.').pop() ?? ''] ?? 'application/octet-stream');
        res.end(await readFile(file));
      });
    },
    async generateBundle() {
      const { catalog, files } = await load();
      this.emitFile({ type: 'asset', fileName: 'models/catalog.json', source: JSON.stringify(catalog, null, 1) });
      for (const [path, file] of files) this.emitFile({ type: 'asset', fileName: `models/${path}`, source: await readFile(file) });
    },
  };
}
