/**
 * The runtime's public entry (`import … from 'lantern'`). Everything an app needs to classify
 * images and text on the device; docs/API.md documents each export. The PWA imports the runtime
 * only through this file and the other entries in package.json's `exports`
 * (src/public-entry.test.ts fails on a deep import).
 */
import './zod-setup.ts';

export { Lantern } from './lantern.ts';
export type {
  ClassificationResult,
  CandidateRun,
  ClassifyOptions,
  LanternInput,
  LanternOptions,
  LoadBreakdown,
  LoadedModel,
  LoadOptions,
  RequestRecord,
  StageTimings,
} from './lantern.ts';
export type { ClassifyInput, DeviceReport, LoadReport, WasmMemoryReading } from './worker-client.ts';
export type { FetchOptions, LoadProgress, ModelDescriptor, ModelSource } from './model-source.ts';
export type { ModelFiles } from './worker-client.ts';
export type { Priority } from './scheduler.ts';
export type { AdapterProblem, Backend, BackendPreference, BackendReason } from './backend.ts';
export type { Note } from './notes.ts';
export type { Prediction } from './postprocess.ts';
export { countOf, labelNamesOf, type LabelName } from './labels.ts';
export { FolderModelSource, type FolderSourceOptions } from './folder-source.ts';
export { signedStore, type SignedStoreOptions } from './store/signed-store.ts';
/** The change-listener set Lantern's own objects use; apps may reuse it for theirs. */
export { Listeners } from './listeners.ts';
export {
  BusyError,
  CancelledError,
  DeviceLostError,
  DowngradeError,
  InputError,
  IntegrityError,
  LanternError,
  ModelLoadError,
  ModelRunError,
  NetworkError,
  RuntimeUnavailableError,
  QuotaError,
  SignatureError,
  StorageError,
  TimeoutError,
  ValidationError,
  WorkerCrashedError,
  ERROR_CODES,
  INPUT_REASONS,
  type ErrorCode,
  type ErrorDetails,
  type InputReason,
} from './errors.ts';
