import type { BackendReason } from './backend.ts';

/**
 * Something the user should know about one answer, as a kind and its parameters; the UI words
 * it in the user's language (src/app/i18n/runtime-text.ts), so no English crosses into it.
 */
export type Note =
  | { kind: 'downscaled'; width: number; height: number; toWidth: number; toHeight: number }
  | { kind: 'truncated'; maxTokens: number }
  /** Most of the text's words are outside the model's vocabulary (e.g. another language): its answer says little. */
  | { kind: 'unknown-words'; percent: number }
  /** WebGPU failed (loading, running, or a lost device) and WASM answered. */
  | { kind: 'backend-fallback'; reason: BackendReason }
  /** The active version failed re-verification; the previous good one answered. */
  | { kind: 'version-fallback'; id: string; version: string; fallback: string };
