import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { ValidationError } from '../../src/runtime/errors.ts';
import { labelsOf } from '../../src/runtime/labels.ts';
import { ModelConfigSchema } from '../../src/runtime/model-config.ts';
import { onnxFiles } from '../../src/runtime/onnx-files.ts';
import { parseSchema } from '../../src/runtime/schema.ts';
import type { FileRole, PackInput } from '../../src/runtime/store/manifest.ts';

/**
 * Reads a model folder (models/README.md layout) into what a release needs: the files the
 * runtime loads, with their roles, and the metadata from config.json's "lantern" block.
 * Recipes, eval sets and the fp32 model are not published.
 */
export interface ModelFolder {
  meta: Omit<PackInput, 'files' | 'samples' | 'sequence' | 'createdAt' | 'chunkSize'>;
  files: { path: string; role: FileRole; bytes: Uint8Array }[];
  samples: { name: string; path: string; kind: 'text' | 'image'; bytes: Uint8Array }[];
  /** Newest modification time of the published files: a reproducible creation time. */
  newestMtime: Date;
}

const OPTIONAL: [string, FileRole][] = [
  ['preprocessor_config.json', 'preprocessor'],
  ['tokenizer.json', 'tokenizer'],
  ['tokenizer_config.json', 'tokenizer-config'],
];

const exists = (path: string) => stat(path).then(() => true, () => false);

/**
 * `complete` may fill in what a plain Hugging Face folder lacks (the "lantern" block, derived from
 * the graph) and check the graph; the completed config.json is what gets published.
 */
export type CompleteConfig = (config: Record<string, unknown>, onnx: { path: string; bytes: Uint8Array }, present: Set<string>) => Promise<Record<string, unknown>>;

/**
 * Reads a file of the folder that is really inside it. A folder someone else made (a download, an
 * archive) may hold links out of it, and what pack reads is published and signed: a sample
 * linked to `../../key.json` or `/proc/self/environ` would ship the publisher's signing key or
 * environment. (A Hugging Face cache snapshot links every file into `../../blobs`: copy it with
 * `cp -rL` first.)
 */
export async function readInside(folder: string, path: string): Promise<Uint8Array> {
  const root = await realpath(folder);
  const real = await realpath(join(root, path));
  if (!real.startsWith(root + sep)) throw new ValidationError(`${path} in the model folder is a link to ${real}, outside the folder; pack only reads files inside it (copy the folder with cp -rL to follow links on purpose).`);
  return readFile(real);
}

export async function readModelFolder(folder: string, complete?: CompleteConfig): Promise<ModelFolder> {
  const configPath = join(folder, 'config.json');
  if (!(await exists(configPath))) throw new ValidationError(`The model folder ${folder} has no config.json (a transformers.js model folder, or give a .onnx file).`);
  let configBytes: Uint8Array = await readInside(folder, 'config.json');
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(configBytes));
  } catch {
    throw new ValidationError('config.json is not valid JSON.');
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new ValidationError('config.json is not a JSON object.');

  const candidates = onnxFiles(json as Record<string, unknown>, (message) => new ValidationError(`${message}.`));
  let onnx: string | undefined;
  for (const path of candidates) if (!onnx && (await exists(join(folder, path)))) onnx = path;
  if (!onnx) throw new ValidationError(`The model folder has no ${candidates.join(' or ')}.`);
  const onnxBytes = await readInside(folder, onnx);
  const present = new Set<string>();
  for (const [path] of OPTIONAL) if (await exists(join(folder, path))) present.add(path);
  if (complete) {
    const completed = await complete(json as Record<string, unknown>, { path: onnx, bytes: onnxBytes }, present);
    if (completed !== json) configBytes = new TextEncoder().encode(`${JSON.stringify(completed, null, 1)}\n`);
    json = completed;
  }
  const { lantern, id2label } = parseSchema(ModelConfigSchema, json, 'config.json');

  const files: ModelFolder['files'] = [
    { path: onnx, role: 'onnx', bytes: onnxBytes },
    { path: 'config.json', role: 'config', bytes: configBytes },
  ];
  for (const [path, role] of OPTIONAL) {
    if (present.has(path)) files.push({ path, role, bytes: await readInside(folder, path) });
  }
  const samplesDir = join(folder, 'samples');
  const sampleNames = (await exists(samplesDir)) ? (await readdir(samplesDir)).filter((n) => /^[A-Za-z0-9._-]+$/.test(n)).sort() : [];
  const samples = await Promise.all(sampleNames.map(async (name) => ({
    name: name.replace(/\.[^.]+$/, ''),
    path: `samples/${name}`,
    kind: name.endsWith('.txt') ? 'text' as const : 'image' as const,
    bytes: await readInside(folder, `samples/${name}`),
  })));
  const mtimes = await Promise.all([...files.map((f) => join(folder, f.path)), ...samples.map((s) => join(folder, s.path))].map(async (p) => (await stat(p)).mtimeMs));

  return {
    meta: {
      id: lantern.id,
      version: lantern.version,
      task: lantern.task,
      title: lantern.title ?? lantern.id,
      batch: lantern.batch,
      labels: labelsOf({ id2label }),
    },
    files,
    samples,
    newestMtime: new Date(Math.floor(Math.max(...mtimes) / 1000) * 1000),
  };
}
