import type { ModelFiles } from './worker-client.ts';

/** What the UI and scheduler need to know about a model version without loading it. */
export interface ModelDescriptor {
  id: string;
  version: string;
  title: string;
  task: 'text-classification' | 'image-classification';
  batch: 'dynamic' | 'fixed';
  labels: string[];
  /** Bytes of the ONNX file. */
  sizeBytes: number;
  /** Built-in example inputs, relative URLs. */
  samples: { name: string; url: string; kind: 'text' | 'image' }[];
}

/** Where models come from (the signed store: store/store-model-source.ts; or a test double). */
export interface ModelSource {
  list(): Promise<ModelDescriptor[]>;
  /** The active version's files, verified, ready to hand to a worker. */
  files(id: string): Promise<ModelFiles>;
  describe(id: string): Promise<ModelDescriptor>;
}
