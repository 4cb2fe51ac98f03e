import { ERROR_CODES, INPUT_REASONS, type AdapterProblem, type BackendReason, type ErrorCode, type InputReason, type Note } from '../../runtime/index.ts';
import { t, type MessageKey } from './index.ts';
import { formatPercent } from '../format.ts';

/**
 * The runtime reports what happened as codes, kinds and parameters; this module words them in
 * the UI language. Each code or kind has its sentence under a key named after it ("error.QUOTA",
 * "note.truncated"): the template literal types make one without a sentence a type error, and the
 * catalog test renders each one in each language.
 */
const errorKey = (code: ErrorCode): MessageKey => `error.${code}`;
const inputKey = (reason: InputReason): MessageKey => `error.input.${reason}`;
const backendKey = (kind: BackendReason['kind']): MessageKey => `backend.${kind}`;
const adapterKey = (kind: AdapterProblem['kind']): MessageKey => `adapter.${kind}`;
const noteKey = (kind: Note['kind']): MessageKey => `note.${kind}`;

const isOneOf = <T extends string>(list: readonly T[], value: unknown): value is T => list.includes(value as T);

/** An error's code and details as the runtime gives them (any Error may come here). */
export const codeOf = (error: Error): unknown => ('code' in error ? error.code : undefined);
export const detailsOf = (error: Error) => ('details' in error && error.details && typeof error.details === 'object' ? error.details : {}) as Record<string, unknown>;

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
  if (code === 'INPUT' && isOneOf(INPUT_REASONS, details.reason)) return t(inputKey(details.reason), params);
  return t(errorKey(isOneOf(ERROR_CODES, code) ? code : 'INTERNAL'), params);
}

export function adapterProblemText(problem: AdapterProblem): string {
  return t(adapterKey(problem.kind));
}

/** Why a backend runs. The adapter is named as the browser names it (a product name). */
export function backendReasonText(reason: BackendReason): string {
  const adapter = 'adapter' in reason ? reason.adapter || t('metrics.device.unknownAdapter') : '';
  const why = 'problem' in reason ? adapterProblemText(reason.problem) : '';
  return t(backendKey(reason.kind), { adapter, why });
}

export function noteText(note: Note): string {
  switch (note.kind) {
    case 'downscaled': return t(noteKey(note.kind), { from: `${note.width}×${note.height}`, to: `${note.toWidth}×${note.toHeight}` });
    case 'truncated': return t(noteKey(note.kind), { tokens: note.maxTokens });
    case 'unknown-words': return t(noteKey(note.kind), { percent: formatPercent(note.percent / 100, 0) });
    case 'backend-fallback': return t(noteKey(note.kind), { reason: backendReasonText(note.reason) });
    case 'version-fallback': return t(noteKey(note.kind), { id: note.id, version: note.version, fallback: note.fallback });
  }
}
