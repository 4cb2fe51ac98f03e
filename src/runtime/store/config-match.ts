import { labelsOf } from '../labels.ts';
import { modelTask, RuntimeConfigSchema } from '../model-config.ts';
import type { FileRole, Manifest } from './manifest.ts';

/**
 * Why a release's own files are not the model its manifest announces, or undefined when they are:
 * config.json's id, version and labels, and the task the worker will load it as (model-config's
 * `modelTask`). The page, the Models screen and the fallback rules go by the manifest; the worker
 * runs the config. A careless build can sign one model's manifest over another's files (a text
 * model's under an image model's id, last release's config.json): without this check the device
 * would activate it in place of a working version and only auto-rollback would bring that back.
 * Returns a fixed sentence naming at most ids (schema-checked), never file content.
 */
export function configMismatch(manifest: Manifest, files: ReadonlyMap<FileRole, Uint8Array>): string | undefined {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(files.get('config')));
  } catch {
    return 'its config.json is not valid JSON';
  }
  const parsed = RuntimeConfigSchema.safeParse(json);
  if (!parsed.success) return 'its config.json is not a valid model configuration';
  const config = parsed.data;
  if (config.lantern?.id !== undefined && config.lantern.id !== manifest.id) return `its config.json describes ${config.lantern.id}, not ${manifest.id}`;
  if (config.lantern?.version !== undefined && config.lantern.version !== manifest.version) return 'its config.json is that of another version';
  const task = modelTask(config, { preprocessor: files.has('preprocessor'), tokenizer: files.has('tokenizer') });
  if (task !== manifest.task) return `its files make ${task ? `a ${task}` : 'no loadable'} model, not the ${manifest.task} model its manifest announces`;
  const labels = labelsOf(config);
  if (labels.length !== manifest.labels.length || labels.some((label, i) => label !== manifest.labels[i])) return 'the labels of its config.json differ from its manifest\'s';
  return undefined;
}
