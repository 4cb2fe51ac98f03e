import { ValidationError } from '../../src/runtime/errors.ts';
import type { ModelFolder } from './folder.ts';

/**
 * Checks run on a model before it is signed; each throws ValidationError on a problem.
 * An ONNX ModelProto starts with field 1 (ir_version, varint): tag byte 0x08.
 */
export function inspectModel(model: ModelFolder): void {
  const onnx = model.files.find((f) => f.role === 'onnx')!;
  if (onnx.bytes.length < 16 || onnx.bytes[0] !== 0x08) throw new ValidationError(`${onnx.path} does not look like an ONNX model.`);
}
