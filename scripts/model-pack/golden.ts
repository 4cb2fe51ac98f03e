import { readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import { ValidationError } from '../../src/runtime/errors.ts';
import { parseSchema } from '../../src/runtime/schema.ts';
import type { ReleaseValidation } from '../../src/runtime/store/manifest.ts';

/**
 * `--golden golden.json`: the release's validation set. The file lists text items inline and
 * image items by path (relative to golden.json); images are published as release files with
 * role "golden" under `golden/`, hashed and signed like the model itself.
 *   { "threshold": 0.9, "items": [{ "text": "...", "label": "spam" }, { "image": "a.png", "label": "0" }] }
 */
const GoldenFileSchema = z.object({
  threshold: z.number().min(0).max(1),
  items: z.array(z.union([
    z.object({ text: z.string(), label: z.string() }),
    z.object({ image: z.string(), label: z.string() }),
  ])).min(1),
});

export interface GoldenSet {
  validation: ReleaseValidation;
  files: { path: string; role: 'golden'; bytes: Uint8Array }[];
}

export async function readGoldenSet(file: string): Promise<GoldenSet> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(file, 'utf8'));
  } catch {
    throw new ValidationError('The golden set file is missing or not valid JSON.');
  }
  const golden = parseSchema(GoldenFileSchema, json, 'The golden set file');
  const files = new Map<string, Uint8Array>();
  const items = await Promise.all(golden.items.map(async (item) => {
    if ('text' in item) return { input: { kind: 'text' as const, text: item.text }, label: item.label };
    const path = `golden/${basename(item.image)}`;
    if (!files.has(path)) files.set(path, await readFile(join(dirname(file), item.image)));
    return { input: { kind: 'image' as const, path }, label: item.label };
  }));
  return { validation: { threshold: golden.threshold, items }, files: [...files].map(([path, bytes]) => ({ path, role: 'golden' as const, bytes })) };
}
