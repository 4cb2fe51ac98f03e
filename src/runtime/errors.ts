/**
 * Typed errors. Each class has a stable `code` so that the UI, metrics and tests can
 * branch on it, and so that it can be rebuilt on the page after crossing the worker
 * boundary (see error-transfer.ts). Messages never contain user input.
 */
export const ERROR_CODES = [
  'INPUT',
  'MODEL_LOAD',
  'MODEL_RUN',
  'RUNTIME_UNAVAILABLE',
  'DEVICE_LOST',
  'INTEGRITY',
  'SIGNATURE',
  'DOWNGRADE',
  'QUOTA',
  'STORAGE',
  'NETWORK',
  'BUSY',
  'CANCELLED',
  'TIMEOUT',
  'WORKER_CRASHED',
  'VALIDATION',
  'INTERNAL',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];
/** Not the model's or device's fault: the caller gave up or the queue pushed back. */
export const REJECTION_CODES: readonly string[] = ['BUSY', 'CANCELLED', 'TIMEOUT'] satisfies ErrorCode[];

/**
 * What exactly was wrong with an input (InputError's `details.reason`), so the UI can say it in
 * the user's language; the other details are the sentence's parameters.
 */
export const INPUT_REASONS = [
  'empty-text', 'not-text', 'wants-image', 'wants-text', 'empty-file', 'file-too-large', 'not-an-image',
  'unknown-format', 'heic', 'undecodable', 'too-many-pixels', 'corrupt', 'no-pixels', 'no-canvas', 'unprepared', 'wrong-size',
  'bad-pixels', 'unreadable-element', 'unreadable-file', 'unsupported-input', 'bad-model-id', 'bad-option',
] as const;
export type InputReason = (typeof INPUT_REASONS)[number];

export type ErrorDetails = Record<string, string | number | boolean | null>;

export class LanternError extends Error {
  readonly code: ErrorCode = 'INTERNAL';
  readonly details: ErrorDetails;
  constructor(message: string, details: ErrorDetails = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.details = details;
  }
  // An explicit name per class: bundlers minify constructor names.
  override name = 'LanternError';
}

/** The user's input cannot be classified (wrong type, corrupt, empty...). */
export class InputError extends LanternError {
  override readonly code = 'INPUT';
  override name = 'InputError';
  /** Typed, so that an app's `switch` over `details.reason` can be exhaustive. */
  declare readonly details: ErrorDetails & { reason: InputReason };
  /** A reason is required: it is what the user is told (see INPUT_REASONS). */
  constructor(message: string, details: ErrorDetails & { reason: InputReason }, options?: { cause?: unknown }) {
    super(message, details, options);
  }
}
/**
 * A file the user chose that can no longer be read (moved, deleted, on a card taken out, or its
 * access ended): the browser's NotReadableError, typed, and not the model's fault.
 */
export function unreadableFile(cause: unknown): InputError {
  return new InputError('The file could not be read: it was moved or deleted, or access to it ended.', { reason: 'unreadable-file' }, { cause });
}
/** A model file could not be parsed or a session could not be created. */
export class ModelLoadError extends LanternError { override readonly code = 'MODEL_LOAD'; override name = 'ModelLoadError'; }
/**
 * The model's graph loaded but failed to run (ONNX Runtime's error is the cause): a static input
 * shape the export fixed by mistake, an index past a table's end. Lantern shapes every input as
 * the model declares, so this is the model version's fault: it counts toward its rollback, and a
 * fallback model may answer.
 */
export class ModelRunError extends LanternError { override readonly code = 'MODEL_RUN'; override name = 'ModelRunError'; }
/**
 * ONNX Runtime could not start in the worker: its wasm could not be downloaded, or did not
 * compile. Nothing to do with the model (it does not count against a version); the next request
 * tries again in a fresh worker.
 */
export class RuntimeUnavailableError extends LanternError { override readonly code = 'RUNTIME_UNAVAILABLE'; override name = 'RuntimeUnavailableError'; }
/** The GPU device went away during a run; callers retry on WASM. */
export class DeviceLostError extends LanternError { override readonly code = 'DEVICE_LOST'; override name = 'DeviceLostError'; }
/** Bytes do not match the hash the signed manifest promised. */
export class IntegrityError extends LanternError { override readonly code = 'INTEGRITY'; override name = 'IntegrityError'; }
/** The manifest signature is missing, malformed or from an untrusted key. */
export class SignatureError extends LanternError { override readonly code = 'SIGNATURE'; override name = 'SignatureError'; }
/** A manifest older than one already seen (replay or downgrade attack). */
export class DowngradeError extends LanternError { override readonly code = 'DOWNGRADE'; override name = 'DowngradeError'; }
/** Storage is full; nothing installed was touched. */
export class QuotaError extends LanternError { override readonly code = 'QUOTA'; override name = 'QuotaError'; }
/** IndexedDB failed or is blocked by another tab. */
export class StorageError extends LanternError { override readonly code = 'STORAGE'; override name = 'StorageError'; }
/** A download failed after its retries, or the device is offline. */
export class NetworkError extends LanternError { override readonly code = 'NETWORK'; override name = 'NetworkError'; }
/** The queue is full: backpressure, try again later. */
export class BusyError extends LanternError { override readonly code = 'BUSY'; override name = 'BusyError'; }
/** The caller aborted the request. */
export class CancelledError extends LanternError { override readonly code = 'CANCELLED'; override name = 'CancelledError'; }
/** The request's deadline passed before it could run. */
export class TimeoutError extends LanternError { override readonly code = 'TIMEOUT'; override name = 'TimeoutError'; }
/** The worker died while the request was in flight. */
export class WorkerCrashedError extends LanternError { override readonly code = 'WORKER_CRASHED'; override name = 'WorkerCrashedError'; }
/** A release failed its validation gate (golden set) or its schema. */
export class ValidationError extends LanternError { override readonly code = 'VALIDATION'; override name = 'ValidationError'; }

const classes = {
  LanternError,
  InputError,
  ModelLoadError,
  ModelRunError,
  RuntimeUnavailableError,
  DeviceLostError,
  IntegrityError,
  SignatureError,
  DowngradeError,
  QuotaError,
  StorageError,
  NetworkError,
  BusyError,
  CancelledError,
  TimeoutError,
  WorkerCrashedError,
  ValidationError,
} as const;

export type ErrorClassName = keyof typeof classes;

/** Plain-object form of an error, safe for structured clone; `cause` is serialised the same way. */
export interface SerializedError {
  name: string;
  message: string;
  details: ErrorDetails;
  stack?: string;
  cause?: SerializedError;
}

/** Causes kept across the boundary: a chain deeper than this is cut (a cycle would never end). */
const MAX_CAUSE_DEPTH = 4;

export function serializeError(error: unknown, depth = 0): SerializedError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error), details: {} };
  const serialized: SerializedError = { name: error.name, message: error.message, details: error instanceof LanternError ? error.details : {} };
  if (error.stack) serialized.stack = error.stack;
  if (error.cause !== undefined && depth < MAX_CAUSE_DEPTH) serialized.cause = serializeError(error.cause, depth + 1);
  return serialized;
}

/**
 * Rebuilds the original class when it is a Lantern error. Anything else (ORT's own errors, a
 * DataCloneError) becomes a LanternError with code INTERNAL whose `cause` is the original, by
 * name and message: every failure a caller sees is a LanternError (docs/API.md).
 */
export function deserializeError(serialized: SerializedError): LanternError {
  return asLanternError(rebuild(serialized));
}

/** The error as it was thrown: its Lantern class, or a plain Error of the same name; causes too. */
function rebuild(serialized: SerializedError): Error {
  const options = serialized.cause && { cause: rebuild(serialized.cause) };
  const Ctor = (classes as Record<string, typeof LanternError | undefined>)[serialized.name];
  const error = Ctor ? new Ctor(serialized.message, serialized.details, options) : new Error(serialized.message, options);
  if (!Ctor) error.name = serialized.name;
  if (serialized.stack) error.stack = serialized.stack;
  return error;
}

/** What the front door rethrows: a LanternError as it is, anything else wrapped as INTERNAL (its cause). */
export function asLanternError(error: unknown): LanternError {
  if (error instanceof LanternError) return error;
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return new LanternError(message, {}, { cause: error });
}

/**
 * The worker failed, not the request: it died, or ONNX Runtime could not start in it (which it
 * cannot do twice in one worker, so the worker is replaced). A fresh worker may well succeed (a
 * crash is rare; a download cut by a lost connection is fetched again), so the work is tried once
 * more there.
 */
export function worthAFreshWorker(error: unknown): boolean {
  return error instanceof WorkerCrashedError || error instanceof RuntimeUnavailableError;
}

export function isAbortError(error: unknown): boolean {
  return error instanceof CancelledError || (error instanceof DOMException && error.name === 'AbortError');
}

/** The error of a request its caller's `signal` aborted; the signal's reason (an `AbortSignal.timeout`'s TimeoutError…) is its cause. */
export function cancelledBy(signal: AbortSignal | undefined): CancelledError {
  return new CancelledError('The request was cancelled.', {}, { cause: signal?.reason });
}

/** Throws CancelledError when the signal is aborted (call between stages of long work). */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw cancelledBy(signal);
}
