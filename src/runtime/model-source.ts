import type { LabelName } from './labels.ts';
import type { ModelFiles } from './worker-client.ts';

/** What the UI and scheduler need to know about a model version without loading it. */
export interface ModelDescriptor {
  id: string;
  version: string;
  title: string;
  task: 'text-classification' | 'image-classification';
  batch: 'dynamic' | 'fixed';
  labels: string[];
  /** Each of `labels`' names for people, in the same order, as the model's config.json gives them (`display_names`, `localized_display_names`; `{}` for a label it does not name). */
  labelNames?: LabelName[];
  /** Bytes of the ONNX file. */
  sizeBytes: number;
  /** Built-in example inputs, relative URLs. */
  samples: { name: string; url: string; kind: 'text' | 'image' }[];
  /** True when the files were verified against a trusted signature (the store); false for development folders. */
  signed: boolean;
}

/** How far `Lantern.load` got: bytes while downloading, then the session, then ready. */
export type LoadProgress =
  | { phase: 'download'; loadedBytes: number; totalBytes?: number }
  | { phase: 'session' }
  | { phase: 'ready' };

export interface FetchOptions {
  signal?: AbortSignal;
  onProgress?: (progress: LoadProgress) => void;
}

/** Where models come from (the signed store: store/store-model-source.ts; a development folder: folder-source.ts). */
export interface ModelSource {
  list(): Promise<ModelDescriptor[]>;
  /** The active version's files, verified, ready to hand to a worker. */
  files(id: string, options?: FetchOptions): Promise<ModelFiles>;
  describe(id: string): Promise<ModelDescriptor>;
  /** Makes the model available locally (e.g. installs it from the catalog); optional. */
  prepare?(id: string, options?: FetchOptions): Promise<void>;
  /**
   * The labels the model answers in, also when it cannot be described now (its only version was
   * quarantined or revoked): what a fallback must speak to answer for it (release/fallback.ts).
   * Optional: without it, a model that cannot be described has no fallback.
   */
  lastLabels?(id: string): Promise<readonly string[] | undefined>;
  /**
   * Calls `listener` whenever what `describe` and `files` answer may have changed (a version
   * installed, activated, rolled back or removed, also by another tab): Lantern reads them again
   * before its next run. Optional: without it, call `refreshModels()` after such a change.
   */
  subscribe?(listener: () => void): () => void;
}
