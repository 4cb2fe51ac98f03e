import { readFile, stat } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { ValidationError } from '../../src/runtime/errors.ts';
import { labelsOf } from '../../src/runtime/labels.ts';
import { Id2LabelSchema, LabelsConfigSchema, PreprocessorConfigSchema, SEMVER, tensorSize, type PreprocessorConfig } from '../../src/runtime/model-config.ts';
import { MODEL_ID, MODEL_ID_RULE } from '../../src/runtime/model-id.ts';
import { parseSchema } from '../../src/runtime/schema.ts';
import { UsageError } from '../cli.mjs';
import { readInside, readModelFolder, type ModelFolder } from './folder.ts';
import { inspectOnnx, planGraph, type GraphInfo, type GraphPlan } from './onnx-graph.ts';

/**
 * "Bring your own model": turns what a team has into a model folder Lantern can sign —
 *  (1) a transformers.js folder from the Hugging Face hub (no "lantern" block: derived from the
 *      graph and flags), or a Lantern folder (its block is checked against the graph);
 *  (2) a bare .onnx classifier plus flags (labels, input size, resize, crop, mean/std, output).
 * The user's files are never modified: the normalised config is only written into the release.
 * Errors name the file role (the path only when it does not exist), never the values of flags or files.
 */
export interface SourceOptions {
  id?: string;
  version?: string;
  title?: string;
  /** Bare .onnx: labels.json (array or {"0": label}) or labels.txt (one per line). */
  labels?: string;
  /** Bare .onnx: model input size, `224` or `224x192` (height x width); default: the graph's. */
  size?: string;
  /** Bare .onnx: `stretch` (default) or `shortest_edge:256`. */
  resize?: string;
  /** Bare .onnx: centre crop, `224` or `HxW`. */
  crop?: string;
  mean?: string;
  std?: string;
  output?: string;
}

/** Asks the user for a missing value (only when stdin is a terminal). */
export type Ask = (question: string) => Promise<string>;

export interface ModelSource {
  model: ModelFolder;
  graph: GraphInfo;
}


async function need(options: SourceOptions, key: keyof SourceOptions, question: string, ask?: Ask): Promise<string> {
  const value = options[key] ?? (ask ? (await ask(`${question}: `)).trim() : undefined);
  // A missing argument is a usage error (exit 2), like any other the command line itself causes.
  if (!value) throw new UsageError(`Missing --${key}: ${question.toLowerCase()}.`);
  return value;
}

function checked(value: string, pattern: RegExp, flag: string, rule: string): string {
  if (!pattern.test(value)) throw new UsageError(`--${flag} must be ${rule}.`);
  return value;
}

function output(options: SourceOptions): 'logits' | 'probabilities' {
  const value = options.output ?? 'logits';
  if (value !== 'logits' && value !== 'probabilities') throw new UsageError('--output must be "logits" or "probabilities".');
  return value;
}

function idFromName(name: string): string | undefined {
  const slug = name.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[^a-z0-9]+/, '');
  return MODEL_ID.test(slug) ? slug : undefined;
}

/** Parses `224` or `224x192` (height x width). */
function dims(value: string, flag: string): { height: number; width: number } {
  const m = /^(\d+)(?:x(\d+))?$/.exec(value);
  if (!m || Number(m[1]) < 1 || (m[2] !== undefined && Number(m[2]) < 1)) throw new UsageError(`--${flag} must be a size like 224 or 224x192.`);
  return { height: Number(m[1]), width: Number(m[2] ?? m[1]) };
}

function numbers(value: string, flag: string, channels: number): number[] {
  const list = value.split(',').map((s) => Number(s.trim()));
  if (list.some((n) => !Number.isFinite(n)) || (list.length !== 1 && list.length !== channels)) {
    throw new UsageError(`--${flag} must be ${channels === 1 ? 'one number' : 'one or three comma-separated numbers'}.`);
  }
  // One value per channel, as transformers.js requires of a list (it refuses [0.5] for RGB).
  return list.length === channels ? list : new Array<number>(channels).fill(list[0]!);
}

/** Labels from a labels file: a JSON array, a JSON {"0": "label"} map, or one label per line. */
function parseLabels(bytes: Uint8Array, json: boolean): string[] {
  const content = new TextDecoder().decode(bytes);
  if (!json) return content.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch {
    throw new ValidationError('The labels file is not valid JSON.');
  }
  // A {"0": label} map is read as config.json's id2label is: a gap in its keys is refused, not closed up.
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return labelsOf({ id2label: parseSchema(Id2LabelSchema, parsed, 'The labels file') });
  const list = Array.isArray(parsed) ? parsed : [];
  if (!list.every((l): l is string => typeof l === 'string')) throw new ValidationError('The labels file must list labels as strings.');
  return list;
}

/** The preprocessing must produce exactly the tensor the graph takes. */
function checkImagePlan(p: PreprocessorConfig, plan: GraphPlan, file: string): void {
  const image = plan.image!;
  if (image.channels !== (p.do_convert_grayscale ? 1 : 3)) {
    throw new ValidationError(`${file} takes ${image.channels}-channel images but the preprocessing produces ${p.do_convert_grayscale ? 1 : 3}.`);
  }
  // The schema already refused a size that depends on the image (the runtime batches one size).
  const size = tensorSize(p);
  if (!size || (image.height === undefined && image.width === undefined)) return;
  if ((image.height ?? size.height) !== size.height || (image.width ?? size.width) !== size.width) {
    throw new ValidationError(`${file} takes ${image.height}x${image.width} images but the preprocessing produces ${size.height}x${size.width}.`);
  }
}

function lanternBlock(plan: GraphPlan, id: string, version: string, title: string, out: 'logits' | 'probabilities') {
  return { id, version, task: plan.task, title, output: out, batch: plan.batch, input_names: plan.inputNames, output_name: plan.outputName };
}

/** A transformers.js / Lantern folder: derive or check the "lantern" block against the graph. */
async function readFolder(folder: string, options: SourceOptions, ask?: Ask): Promise<ModelSource> {
  let graph: GraphInfo | undefined;
  const model = await readModelFolder(folder, async (config, onnx, present) => {
    graph = await inspectOnnx(onnx.bytes, onnx.path);
    const id2label = config.id2label;
    const labels = id2label && typeof id2label === 'object' ? Object.keys(id2label).length : 0;
    if (labels < 2) throw new ValidationError('config.json has no id2label with at least two labels: Lantern needs a classifier.');
    // Before the graph's output width is compared with the label count: a gap is named as such.
    parseSchema(LabelsConfigSchema, config, 'config.json');
    const section = config.lantern as { task?: string; output_name?: string } | undefined;
    const plan = planGraph(graph, onnx.path, labels, section?.output_name);
    const fileTask = present.has('preprocessor_config.json') ? 'image-classification' : present.has('tokenizer.json') ? 'text-classification' : undefined;
    if (!fileTask) throw new ValidationError('The model folder has neither preprocessor_config.json (image model) nor tokenizer.json (text model).');
    const kind = (task: string) => (task === 'image-classification' ? 'an image' : 'a text');
    if (plan.task !== fileTask) throw new ValidationError(`${onnx.path} is ${kind(plan.task)} model but the folder's files describe ${kind(fileTask)} model.`);
    if (section?.task !== undefined && section.task !== plan.task) throw new ValidationError(`config.json's lantern.task does not match ${onnx.path}, which is ${kind(plan.task)} model.`);
    if (plan.task === 'text-classification' && !present.has('tokenizer_config.json')) throw new ValidationError('The model folder has tokenizer.json but no tokenizer_config.json.');
    if (plan.task === 'image-classification') {
      const pre = await readJson(folder, 'preprocessor_config.json');
      checkImagePlan(parseSchema(PreprocessorConfigSchema, pre, 'preprocessor_config.json'), plan, onnx.path);
    }
    // A folder packed before (the repo's own models) keeps its block; the flags given still win,
    // so the same folder can be published under another id or version without editing it.
    if (section) {
      const given = {
        ...(options.id !== undefined ? { id: checked(options.id, MODEL_ID, 'id', MODEL_ID_RULE) } : {}),
        ...(options.version !== undefined ? { version: checked(options.version, SEMVER, 'version', 'semver, e.g. 1.0.0') } : {}),
        ...(options.title !== undefined ? { title: options.title } : {}),
        ...(options.output !== undefined ? { output: output(options) } : {}),
      };
      // Without flags the folder's own config.json is published byte for byte.
      return Object.keys(given).length === 0 ? config : { ...config, lantern: { ...section, ...given } };
    }
    const id = options.id ? checked(options.id, MODEL_ID, 'id', MODEL_ID_RULE) : idFromName(basename(folder)) ?? await need(options, 'id', `Model id (${MODEL_ID_RULE})`, ask);
    const version = checked(await need(options, 'version', 'Version (semver, e.g. 1.0.0)', ask), SEMVER, 'version', 'semver, e.g. 1.0.0');
    return { ...config, lantern: lanternBlock(plan, checked(id, MODEL_ID, 'id', MODEL_ID_RULE), version, options.title ?? id, output(options)) };
  });
  return { model, graph: graph! };
}

async function readJson(folder: string, name: string): Promise<unknown> {
  const missing = () => new ValidationError(`${name} is missing or not valid JSON.`);
  // A link out of the folder is refused as such (readInside), not as a missing file.
  const bytes = await readInside(folder, name).catch((error: unknown) => Promise.reject(error instanceof ValidationError ? error : missing()));
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw missing();
  }
}

const ONNX_FILE = 'The ONNX file';

/** A bare .onnx image classifier: config and preprocessor_config are written from the flags. */
async function readBareOnnx(path: string, options: SourceOptions, ask?: Ask): Promise<ModelSource> {
  const bytes = await readFile(path).catch(() => {
    throw new ValidationError('The ONNX file cannot be read.');
  });
  const graph = await inspectOnnx(bytes, ONNX_FILE);
  const labelsPath = await need(options, 'labels', 'Labels file (labels.json or labels.txt)', ask);
  const labelBytes = await readFile(labelsPath).catch(() => {
    throw new ValidationError('The labels file cannot be read.');
  });
  const labels = parseLabels(labelBytes, extname(labelsPath).toLowerCase() === '.json');
  if (labels.length < 2) throw new ValidationError('The labels file needs at least two labels.');
  const plan = planGraph(graph, ONNX_FILE, labels.length);
  if (plan.task === 'text-classification') {
    throw new ValidationError('The ONNX file is a text classifier: publish it as a folder with tokenizer.json and tokenizer_config.json.');
  }
  const image = plan.image!;
  const id = checked(await need(options, 'id', `Model id (${MODEL_ID_RULE})`, ask), MODEL_ID, 'id', MODEL_ID_RULE);
  const version = checked(await need(options, 'version', 'Version (semver, e.g. 1.0.0)', ask), SEMVER, 'version', 'semver, e.g. 1.0.0');
  const graphSize = image.height && image.width ? `${image.height}x${image.width}` : undefined;
  const resize = options.resize ?? 'stretch';
  const shortest = /^shortest_edge:(\d+)$/.exec(resize);
  if (resize !== 'stretch' && !shortest) throw new UsageError('--resize must be "stretch" or "shortest_edge:N".');
  const mean = numbers(await need(options, 'mean', 'Normalisation mean per channel (e.g. 0.485,0.456,0.406)', ask), 'mean', image.channels);
  const std = numbers(await need(options, 'std', 'Normalisation std per channel (e.g. 0.229,0.224,0.225)', ask), 'std', image.channels);
  if (std.some((s) => s <= 0)) throw new UsageError('--std values must be positive.');
  const preprocessor = {
    do_resize: true,
    size: shortest ? { shortest_edge: Number(shortest[1]) } : dims(options.size ?? graphSize ?? await need(options, 'size', 'Model input size (e.g. 224)', ask), 'size'),
    resample: 2,
    do_center_crop: options.crop !== undefined,
    ...(options.crop !== undefined ? { crop_size: dims(options.crop, 'crop') } : {}),
    do_rescale: true,
    rescale_factor: 1 / 255,
    do_normalize: true,
    image_mean: mean,
    image_std: std,
    ...(image.channels === 1 ? { do_convert_grayscale: true } : {}),
  };
  checkImagePlan(parseSchema(PreprocessorConfigSchema, preprocessor, 'The preprocessing (--resize, --size, --crop)'), plan, ONNX_FILE);
  const id2label = Object.fromEntries(labels.map((l, i) => [String(i), l]));
  const config = {
    id2label,
    label2id: Object.fromEntries(labels.map((l, i) => [l, i])),
    num_labels: labels.length,
    lantern: lanternBlock(plan, id, version, options.title ?? id, output(options)),
  };
  const json = (value: unknown) => new TextEncoder().encode(`${JSON.stringify(value, null, 1)}\n`);
  return {
    graph,
    model: {
      meta: { id, version, task: plan.task, title: config.lantern.title, batch: plan.batch, labels },
      files: [
        { path: graph.quantized ? 'onnx/model_quantized.onnx' : 'onnx/model.onnx', role: 'onnx', bytes },
        { path: 'config.json', role: 'config', bytes: json(config) },
        { path: 'preprocessor_config.json', role: 'preprocessor', bytes: json(preprocessor) },
      ],
      samples: [],
      newestMtime: new Date(Math.floor((await stat(path)).mtimeMs / 1000) * 1000),
    },
  };
}

/** A folder (transformers.js or Lantern layout) or a bare .onnx file. */
export async function readModelSource(path: string, options: SourceOptions = {}, ask?: Ask): Promise<ModelSource> {
  const info = await stat(path).catch(() => undefined);
  if (!info) throw new ValidationError(`${path} does not exist: name a model folder or an .onnx file.`);
  if (info.isDirectory()) return readFolder(path, options, ask);
  if (extname(path).toLowerCase() !== '.onnx') throw new ValidationError('The model must be a folder or an .onnx file.');
  return readBareOnnx(path, options, ask);
}
