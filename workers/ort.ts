/**
 * The one place that picks the onnxruntime-web build. Every ORT entry bundles its own wasm,
 * so importing two would ship two; this build carries both the WebGPU and the WASM (CPU)
 * execution providers in one wasm file.
 */
export * as ort from 'onnxruntime-web/webgpu';
