import { ERROR_CODES, INPUT_REASONS, type AdapterProblem, type BackendReason, type ErrorCode, type InputReason, type Note } from '../../runtime/index.ts';
import { t, type MessageKey } from './index.ts';
import { formatPercent } from '../format.ts';

/**
 * The runtime reports what happened as codes, kinds and parameters; this module words them in
 * the UI language. Records keyed by every code and kind make a missing sentence a type error,
 * and the catalog test renders each one in each language.
 */
export const ERROR_TEXT: Record<ErrorCode, MessageKey> = {
  INPUT: 'error.INPUT',
  MODEL_LOAD: 'error.MODEL_LOAD',
  RUNTIME_UNAVAILABLE: 'error.RUNTIME_UNAVAILABLE',
  DEVICE_LOST: 'error.DEVICE_LOST',
  INTEGRITY: 'error.INTEGRITY',
  SIGNATURE: 'error.SIGNATURE',
  DOWNGRADE: 'error.DOWNGRADE',
  QUOTA: 'error.QUOTA',
  STORAGE: 'error.STORAGE',
  NETWORK: 'error.NETWORK',
  BUSY: 'error.BUSY',
  CANCELLED: 'error.CANCELLED',
  TIMEOUT: 'error.TIMEOUT',
  WORKER_CRASHED: 'error.WORKER_CRASHED',
  VALIDATION: 'error.VALIDATION',
  INTERNAL: 'error.INTERNAL',
};

export const INPUT_TEXT: Record<InputReason, MessageKey> = {
  'empty-text': 'error.input.empty-text',
  'not-text': 'error.input.not-text',
  'wants-image': 'error.input.wants-image',
  'wants-text': 'error.input.wants-text',
  'empty-file': 'error.input.empty-file',
  'file-too-large': 'error.input.file-too-large',
  'not-an-image': 'error.input.not-an-image',
  'unknown-format': 'error.input.unknown-format',
  heic: 'error.input.heic',
  undecodable: 'error.input.undecodable',
  'too-many-pixels': 'error.input.too-many-pixels',
  corrupt: 'error.input.corrupt',
  'no-pixels': 'error.input.no-pixels',
  'no-canvas': 'error.input.no-canvas',
  unprepared: 'error.input.unprepared',
  'wrong-size': 'error.input.wrong-size',
  'bad-pixels': 'error.input.bad-pixels',
  'unreadable-element': 'error.input.unreadable-element',
  'unsupported-input': 'error.input.unsupported-input',
  'bad-model-id': 'error.input.bad-model-id',
  'bad-option': 'error.input.bad-option',
};

export const BACKEND_TEXT: Record<BackendReason['kind'], MessageKey> = {
  'wasm-requested': 'backend.wasm-requested',
  'no-adapter': 'backend.no-adapter',
  'webgpu-unavailable': 'backend.webgpu-unavailable',
  'webgpu-requested': 'backend.webgpu-requested',
  'software-adapter': 'backend.software-adapter',
  'hardware-adapter': 'backend.hardware-adapter',
  'webgpu-load-failed': 'backend.webgpu-load-failed',
  'webgpu-run-failed': 'backend.webgpu-run-failed',
  'device-lost': 'backend.device-lost',
};

export const ADAPTER_TEXT: Record<AdapterProblem['kind'], MessageKey> = {
  'no-webgpu': 'adapter.no-webgpu',
  'null-adapter': 'adapter.null-adapter',
  'request-failed': 'adapter.request-failed',
};

export const NOTE_TEXT: Record<Note['kind'], MessageKey> = {
  downscaled: 'note.downscaled',
  truncated: 'note.truncated',
  'unknown-words': 'note.unknown-words',
  'backend-fallback': 'note.backend-fallback',
  'version-fallback': 'note.version-fallback',
};

const isOneOf = <T extends string>(list: readonly T[], value: unknown): value is T => list.includes(value as T);

const codeOf = (error: Error): unknown => ('code' in error ? error.code : undefined);
const detailsOf = (error: Error) => ('details' in error && error.details && typeof error.details === 'object' ? error.details : {}) as Record<string, unknown>;

/**
 * The result card's line when a fallback answered. A primary refused for integrity (its stored
 * files were altered) is said to be so: a security refusal is never worded as a mere failure.
 */
export function fallbackText(answered: { requested: string; code: ErrorCode }, id: string): string {
  return t(answered.code === 'INTEGRITY' ? 'result.answeredByFallback.integrity' : 'result.answeredByFallback', { requested: answered.requested, id });
}

/** The sentence for an error: its input reason's, else its code's; never its English message. */
export function errorText(error: Error): string {
  const code = codeOf(error);
  const details = detailsOf(error);
  const params: Record<string, string | number> = {};
  for (const [name, value] of Object.entries(details)) if (typeof value === 'string' || typeof value === 'number') params[name] = value;
  if (code === 'INPUT' && isOneOf(INPUT_REASONS, details.reason)) return t(INPUT_TEXT[details.reason], params);
  return t(ERROR_TEXT[isOneOf(ERROR_CODES, code) ? code : 'INTERNAL'], params);
}

/**
 * Why a model catalog could not be read (adding one, checking for updates). A failed fetch says
 * what to do from its details: a refused origin needs another address or the deployment's
 * configuration, an HTTP status a correct address, no answer at all a connection. An expired
 * catalog says when. Anything else is worded as errorText words it.
 */
export function catalogErrorText(error: Error): string {
  const code = codeOf(error);
  const details = detailsOf(error);
  if (code === 'NETWORK') {
    if (typeof details.origin === 'string') return t('error.catalog.notAllowed', { origin: details.origin });
    if (typeof details.status === 'number') return t('error.catalog.status', { status: String(details.status) });
    return t('error.catalog.unreachable');
  }
  if (code === 'VALIDATION' && typeof details.expiresAt === 'string') return t('error.catalog.expired', { date: details.expiresAt.slice(0, 10) });
  return errorText(error);
}

export function adapterProblemText(problem: AdapterProblem): string {
  return t(ADAPTER_TEXT[problem.kind]);
}

/** Why a backend runs. The adapter is named as the browser names it (a product name). */
export function backendReasonText(reason: BackendReason): string {
  const adapter = 'adapter' in reason ? reason.adapter || t('metrics.device.unknownAdapter') : '';
  const why = 'problem' in reason ? adapterProblemText(reason.problem) : '';
  return t(BACKEND_TEXT[reason.kind], { adapter, why });
}

export function noteText(note: Note): string {
  switch (note.kind) {
    case 'downscaled': return t(NOTE_TEXT.downscaled, { from: `${note.width}×${note.height}`, to: `${note.toWidth}×${note.toHeight}` });
    case 'truncated': return t(NOTE_TEXT.truncated, { tokens: note.maxTokens });
    case 'unknown-words': return t(NOTE_TEXT['unknown-words'], { percent: formatPercent(note.percent / 100, 0) });
    case 'backend-fallback': return t(NOTE_TEXT['backend-fallback'], { reason: backendReasonText(note.reason) });
    case 'version-fallback': return t(NOTE_TEXT['version-fallback'], { id: note.id, version: note.version, fallback: note.fallback });
  }
}
