import type { ort } from '../ort.ts';
import { ModelLoadError } from '../../src/runtime/errors.ts';
import type { RuntimeConfig } from '../../src/runtime/model-config.ts';

/** An input as the session describes it; `type` is absent when ORT has no metadata for it. */
export interface InputInfo {
  name: string;
  type?: string;
}

/**
 * The inputs a task must feed, from the session's own metadata (ORT's `inputMetadata` where the
 * build provides it, else just `inputNames`). `lantern.input_names`, when a config has it, must
 * name inputs the model really has.
 */
export function sessionInputs(session: ort.InferenceSession, config: RuntimeConfig): InputInfo[] {
  const types = new Map<string, string>();
  for (const meta of session.inputMetadata ?? []) if (meta.isTensor) types.set(meta.name, meta.type);
  const configured = config.lantern?.input_names;
  const missing = configured?.filter((name) => !session.inputNames.includes(name)) ?? [];
  if (missing.length > 0) {
    throw new ModelLoadError(`config.json names input "${missing[0]}", but the model's inputs are ${session.inputNames.join(', ')}.`, { file: 'config.json' });
  }
  return (configured ?? session.inputNames).map((name) => ({ name, ...(types.has(name) ? { type: types.get(name) } : {}) }));
}

/** The classifier's scores: the configured output, else `logits` (the hub's name), else the only one. */
export function outputName(session: ort.InferenceSession, config: RuntimeConfig): string {
  const name = config.lantern?.output_name ?? (session.outputNames.includes('logits') ? 'logits' : session.outputNames[0]);
  if (!name || !session.outputNames.includes(name)) throw new ModelLoadError(`The model has no output named "${name ?? ''}".`);
  // Scores are read as float32: a float16 output (an fp16 export) read that way gives confident
  // nonsense, so it is refused at load (where the build reports output types).
  const meta = (session.outputMetadata ?? []).find((m) => m.name === name);
  if (meta?.isTensor && meta.type !== 'float32') throw new ModelLoadError(`The model's output "${name}" is ${meta.type}; Lantern reads float32 scores (export the classifier head in float32).`);
  return name;
}

/** 'fixed' when the graph's first input has a numeric batch dimension (e.g. 1), else 'dynamic'. */
export function batchKind(session: ort.InferenceSession): 'fixed' | 'dynamic' {
  const first = (session.inputMetadata ?? []).find((m) => m.name === session.inputNames[0]);
  const batch = first?.isTensor ? first.shape[0] : undefined;
  return typeof batch === 'number' ? 'fixed' : 'dynamic';
}
