import { ValidationError } from '../errors.ts';
import { labelsOf } from '../labels.ts';
import { modelTask, parseTaskConfigs, RuntimeConfigSchema } from '../model-config.ts';
import type { FileRole, Manifest } from './manifest.ts';

/** A release's JSON files by role, under the names a model folder gives them. */
const JSON_FILES = { 'config': 'config.json', 'preprocessor': 'preprocessor_config.json', 'tokenizer': 'tokenizer.json', 'tokenizer-config': 'tokenizer_config.json' } as const;
type JsonRole = keyof typeof JSON_FILES;

/**
 * Why a release's own files are not the model its manifest announces, or undefined when they are:
 * config.json's id, version and labels, the task the worker will load it as (model-config's
 * `modelTask`), and that task's own files (preprocessor or tokenizer configuration) checked as
 * the worker loads them. The page, the Models screen and the fallback rules go by the manifest;
 * the worker runs the files. A careless build can sign one model's manifest over another's files
 * (a text model's under an image model's id, last release's config.json) or a configuration the
 * worker refuses: without this check the device would activate it in place of a working version
 * (a release without a golden set is not gated) and only auto-rollback would bring that back.
 * Returns a sentence naming at most ids (schema-checked), file names, keys and rules, never file content.
 */
export function configMismatch(manifest: Manifest, files: ReadonlyMap<FileRole, Uint8Array>): string | undefined {
  const json: Partial<Record<JsonRole, unknown>> = {};
  for (const role of Object.keys(JSON_FILES) as JsonRole[]) {
    const bytes = files.get(role);
    if (!bytes) continue;
    try {
      // Decoded as the worker's loader decodes it (store-model-source.ts).
      json[role] = JSON.parse(new TextDecoder().decode(bytes));
    } catch {
      return `its ${JSON_FILES[role]} is not valid JSON`;
    }
  }
  const parsed = RuntimeConfigSchema.safeParse(json.config);
  if (!parsed.success) return 'its config.json is not a valid model configuration';
  const config = parsed.data;
  if (config.lantern?.id !== undefined && config.lantern.id !== manifest.id) return `its config.json describes ${config.lantern.id}, not ${manifest.id}`;
  if (config.lantern?.version !== undefined && config.lantern.version !== manifest.version) return 'its config.json is that of another version';
  const task = modelTask(config, { preprocessor: files.has('preprocessor'), tokenizer: files.has('tokenizer') });
  if (task !== manifest.task) return `its files make ${task ? `a ${task}` : 'no loadable'} model, not the ${manifest.task} model its manifest announces`;
  const labels = labelsOf(config);
  if (labels.length !== manifest.labels.length || labels.some((label, i) => label !== manifest.labels[i])) return 'the labels of its config.json differ from its manifest\'s';
  try {
    parseTaskConfigs(task, { preprocessor: json.preprocessor, tokenizer: json.tokenizer, tokenizerConfig: json['tokenizer-config'] }, (message) => new ValidationError(message));
  } catch (error) {
    // The sentence names the file, a key and the rule (schema.ts), no file content: the caller ends it.
    if (error instanceof ValidationError) return error.message.replace(/\.$/, '');
    throw error;
  }
  return undefined;
}
