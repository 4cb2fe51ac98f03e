// Apart from model-config.ts: the folder source needs this rule on the first screen, and
// model-config's schemas would come with it (the initial JavaScript budget, e2e/serving.spec.ts).

/** transformers.js' file choice for the WASM default (q8), then full precision. */
export const DEFAULT_ONNX_FILES: readonly string[] = ['onnx/model_quantized.onnx', 'onnx/model.onnx'];
/** transformers.js' file suffix for each dtype (DEFAULT_DTYPE_SUFFIX_MAPPING in its utils/dtypes.js). */
const DTYPE_SUFFIX: Record<string, string> = {
  fp32: '', fp16: '_fp16', int8: '_int8', uint8: '_uint8', q8: '_quantized', q4: '_q4', q4f16: '_q4f16', bnb4: '_bnb4', q2: '_q2', q2f16: '_q2f16', q1: '_q1', q1f16: '_q1f16',
};

/**
 * The ONNX files of a hub folder to try, in order: one rule for the folder source and
 * `model:pack`. A config.json that names a dtype (`"transformers.js_config": {"dtype": "fp32"}`,
 * or per file `{"dtype": {"model": "q4"}}`) gets exactly that file, as transformers.js loads it:
 * authors set it when the quantized file answers worse, so no other file may stand in.
 * Otherwise the q8 default, then fp32. An unknown dtype fails with `fail(message)`.
 */
export function onnxFiles(config: Record<string, unknown>, fail: (message: string) => Error): readonly string[] {
  const jsConfig = config['transformers.js_config'];
  let dtype = jsConfig && typeof jsConfig === 'object' ? (jsConfig as { dtype?: unknown }).dtype : undefined;
  if (dtype && typeof dtype === 'object') dtype = (dtype as { model?: unknown }).model;
  if (dtype === undefined || dtype === null || dtype === 'auto') return DEFAULT_ONNX_FILES;
  const suffix = typeof dtype === 'string' && Object.hasOwn(DTYPE_SUFFIX, dtype) ? DTYPE_SUFFIX[dtype] : undefined;
  if (suffix === undefined) throw fail(`config.json's transformers.js_config.dtype ${JSON.stringify(dtype)} is none of ${Object.keys(DTYPE_SUFFIX).join(', ')}`);
  return [`onnx/model${suffix}.onnx`];
}
