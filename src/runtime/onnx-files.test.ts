import { describe, expect, it } from 'vitest';
import { onnxFiles } from './onnx-files.ts';

describe('the ONNX file of a hub folder', () => {
  const fail = (message: string) => new Error(message);
  it('is the q8 file, else fp32, unless config.json names a dtype, as transformers.js chooses', () => {
    expect(onnxFiles({}, fail)).toEqual(['onnx/model_quantized.onnx', 'onnx/model.onnx']);
    expect(onnxFiles({ 'transformers.js_config': { dtype: 'auto' } }, fail)).toEqual(['onnx/model_quantized.onnx', 'onnx/model.onnx']);
    expect(onnxFiles({ 'transformers.js_config': { dtype: 'fp32' } }, fail)).toEqual(['onnx/model.onnx']);
    expect(onnxFiles({ 'transformers.js_config': { dtype: { model: 'q4' } } }, fail)).toEqual(['onnx/model_q4.onnx']);
    expect(() => onnxFiles({ 'transformers.js_config': { dtype: 'fp64' } }, fail)).toThrow(/transformers.js_config.dtype "fp64" is none of fp32, fp16/);
  });
});
