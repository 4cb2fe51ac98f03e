import { ValidationError } from '../../src/runtime/errors.ts';
import { TokenizerConfigSchema, TokenizerJsonSchema } from '../../src/runtime/model-config.ts';
import { parseSchema } from '../../src/runtime/schema.ts';
import { TokenEncoder } from '../../workers/text-preprocess.ts';
import type { ModelFolder } from './folder.ts';

/**
 * Checks run on a model before it is signed; each throws ValidationError on a problem.
 * An ONNX ModelProto starts with field 1 (ir_version, varint): tag byte 0x08.
 */
export function inspectModel(model: ModelFolder): void {
  const onnx = model.files.find((f) => f.role === 'onnx')!;
  if (onnx.bytes.length < 16 || onnx.bytes[0] !== 0x08) throw new ValidationError(`${onnx.path} does not look like an ONNX model.`);
  inspectTokenizer(model);
}

function json(file: { path: string; bytes: Uint8Array } | undefined): unknown {
  if (!file) return {};
  try {
    return JSON.parse(new TextDecoder().decode(file.bytes));
  } catch {
    throw new ValidationError(`${file.path} is not valid JSON.`);
  }
}

/** A text model's tokenizer, loaded as the worker loads it, must give real token ids. */
function inspectTokenizer(model: ModelFolder): void {
  const tokenizer = model.files.find((f) => f.role === 'tokenizer');
  if (!tokenizer) return;
  const tokenizerJson = parseSchema(TokenizerJsonSchema, json(tokenizer), 'tokenizer.json');
  const tokenizerConfig = parseSchema(TokenizerConfigSchema, json(model.files.find((f) => f.role === 'tokenizer-config')), 'tokenizer_config.json');
  try {
    // The encoder refuses, as it does in the worker, a tokenizer whose probe text gives no real ids.
    new TokenEncoder(tokenizerJson, tokenizerConfig);
  } catch (error) {
    throw new ValidationError(`tokenizer.json cannot be used: ${(error as Error).message}`);
  }
}
