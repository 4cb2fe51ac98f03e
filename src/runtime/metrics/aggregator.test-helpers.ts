import type { RequestRecord } from '../lantern.ts';

/** Request records as Lantern emits them, for tests. */
export function okRecord(overrides: Partial<Extract<RequestRecord, { ok: true }>> = {}): RequestRecord {
  return {
    ok: true, modelId: 'spam-filter', version: '1.0.0', backend: 'wasm', label: 'ham', score: 0.93, batchSize: 1, coldStart: false,
    timings: { queueMs: 1, loadMs: 0, preprocessMs: 2, inferenceMs: 10, postprocessMs: 0.5, totalMs: 14 },
    ...overrides,
  };
}
export function failedRecord(errorCode: string, modelId = 'spam-filter'): RequestRecord {
  return { ok: false, modelId, errorCode, errorName: 'X', totalMs: 3 };
}
