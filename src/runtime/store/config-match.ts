import { ModelLoadError, ValidationError } from '../errors.ts';
import { labelsOf } from '../labels.ts';
import { modelTask, parseTaskConfigs, RuntimeConfigSchema } from '../model-config.ts';
import type { ModelFiles } from '../protocol.ts';
import type { Manifest } from './manifest.ts';
import { modelFiles } from './store-model-source.ts';
import { REASONS } from './reason-catalog.ts';
import { fillReason } from './reasons.ts';
import type { VerifiedRead } from './verified-read.ts';

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
export function configMismatch(manifest: Manifest, read: VerifiedRead & { ok: true }): string | undefined {
  // Read as the worker will be handed them.
  let files: ModelFiles;
  try {
    files = modelFiles(manifest, read);
  } catch (error) {
    if (error instanceof ModelLoadError) return fillReason(REASONS.configNotJson, { file: String(error.details.file) });
    throw error;
  }
  const parsed = RuntimeConfigSchema.safeParse(files.config);
  if (!parsed.success) return REASONS.configInvalid;
  const config = parsed.data;
  if (config.lantern?.id !== undefined && config.lantern.id !== manifest.id) return fillReason(REASONS.configOtherModel, { described: config.lantern.id, id: manifest.id });
  if (config.lantern?.version !== undefined && config.lantern.version !== manifest.version) return REASONS.configOtherVersion;
  const task = modelTask(config, { preprocessor: files.preprocessor !== undefined, tokenizer: files.tokenizer !== undefined });
  if (task !== manifest.task) return task ? fillReason(REASONS.configOtherTask, { made: task, task: manifest.task }) : fillReason(REASONS.configNoTask, { task: manifest.task });
  const labels = labelsOf(config);
  if (labels.length !== manifest.labels.length || labels.some((label, i) => label !== manifest.labels[i])) return REASONS.configLabels;
  try {
    parseTaskConfigs(task, files, (message) => new ValidationError(message));
  } catch (error) {
    // The sentence names the file, a key and the rule (schema.ts), no file content: the caller ends it.
    if (error instanceof ValidationError) return error.message.replace(/\.$/, '');
    throw error;
  }
  return undefined;
}
