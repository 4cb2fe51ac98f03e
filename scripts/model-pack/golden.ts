import { readFile, realpath } from 'node:fs/promises';
import { basename, dirname, resolve, sep } from 'node:path';
import { z } from 'zod/mini';
import { ValidationError } from '../../src/runtime/errors.ts';
import { parseSchema } from '../../src/runtime/schema.ts';
import type { ReleaseValidation } from '../../src/runtime/store/manifest.ts';

/**
 * `--golden golden.json`: the release's validation set (format in README, "Add your own model").
 * The file lists text items inline and image items by path (relative to golden.json, inside its
 * folder); images are published as release files with role "golden" under `golden/`, hashed and
 * signed like the model itself. Items are of the model's kind and expect one of its labels.
 *   { "threshold": 0.9, "items": [{ "text": "...", "label": "spam" }, { "image": "a.png", "label": "0" }] }
 */
const GoldenFileSchema = z.object({
  threshold: z.number().check(z.gte(0), z.lte(1)),
  items: z.array(z.union([
    z.object({ text: z.string(), label: z.string() }),
    z.object({ image: z.string(), label: z.string() }),
  ])).check(z.minLength(1)),
});

export interface GoldenSet {
  validation: ReleaseValidation;
  files: { path: string; role: 'golden'; bytes: Uint8Array }[];
}

/** What the golden set is checked against: the model it validates. */
export interface GoldenModel {
  task: 'image-classification' | 'text-classification';
  labels: readonly string[];
}

/** Each item must be an input the model takes, expecting an answer it can give: otherwise the set fails on every device. */
function checkItem(index: number, item: { label: string } & ({ text: string } | { image: string }), model: GoldenModel): void {
  const kind = 'text' in item ? 'text-classification' : 'image-classification';
  if (kind !== model.task) {
    throw new ValidationError(`Golden item ${index + 1} is ${kind === 'text-classification' ? 'a text' : 'an image'} item, but the model classifies ${model.task === 'text-classification' ? 'text' : 'images'}.`);
  }
  if (!model.labels.includes(item.label)) throw new ValidationError(`Golden item ${index + 1} expects the label "${item.label}", which is not one of the model's labels (config.json id2label): ${model.labels.slice(0, 10).map((l) => `"${l}"`).join(', ')}${model.labels.length > 10 ? `, … (${model.labels.length} in all)` : ''}.`);
}

export async function readGoldenSet(file: string, model: GoldenModel): Promise<GoldenSet> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(file, 'utf8'));
  } catch {
    throw new ValidationError(`The golden set file ${file} is missing or not valid JSON.`);
  }
  const golden = parseSchema(GoldenFileSchema, json, `The golden set file ${file}`);
  const folder = await realpath(dirname(resolve(file)));
  const files = new Map<string, { source: string; bytes: Uint8Array }>();
  const items = [];
  for (const [index, item] of golden.items.entries()) {
    checkItem(index, item, model);
    if ('text' in item) {
      items.push({ input: { kind: 'text' as const, text: item.text }, label: item.label });
      continue;
    }
    // Only files inside the golden set's folder: `../` or a symlink out could publish (and sign)
    // anything the publisher's machine holds, a signing key included.
    const source = await realpath(resolve(folder, item.image)).catch(() => undefined);
    if (!source || !source.startsWith(folder + sep)) {
      throw new ValidationError(`Golden item ${index + 1}: its image must be a file inside the golden set's folder.`);
    }
    const path = `golden/${basename(source)}`;
    const seen = files.get(path);
    if (seen && seen.source !== source) throw new ValidationError(`Golden item ${index + 1}: another image has the same file name; rename one.`);
    if (!seen) files.set(path, { source, bytes: await readFile(source) });
    items.push({ input: { kind: 'image' as const, path }, label: item.label });
  }
  return { validation: { threshold: golden.threshold, items }, files: [...files].map(([path, { bytes }]) => ({ path, role: 'golden' as const, bytes })) };
}
