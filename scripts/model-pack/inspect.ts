import { ValidationError } from '../../src/runtime/errors.ts';
import type { ModelFolder } from './folder.ts';

/**
 * Checks run on a model before it is signed. Each inspector throws ValidationError on a
 * problem. Deliberately minimal for now: ONNX graph inspection (inputs/outputs against the
 * config, opset, operators) will be added here as another inspector.
 */
export type ModelInspector = (model: ModelFolder) => Promise<void> | void;

/** An ONNX ModelProto starts with field 1 (ir_version, varint): tag byte 0x08. */
export const onnxLooksValid: ModelInspector = (model) => {
  const onnx = model.files.find((f) => f.role === 'onnx')!;
  if (onnx.bytes.length < 16 || onnx.bytes[0] !== 0x08) throw new ValidationError(`${onnx.path} does not look like an ONNX model.`);
};

export const DEFAULT_INSPECTORS: readonly ModelInspector[] = [onnxLooksValid];

export async function inspectModel(model: ModelFolder, inspectors: readonly ModelInspector[] = DEFAULT_INSPECTORS): Promise<void> {
  for (const inspector of inspectors) await inspector(model);
}
