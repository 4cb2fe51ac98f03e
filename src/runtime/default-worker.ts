/** The inference worker bundled with the runtime (module worker: ORT's threads need ES workers). */
export function defaultWorker(name: string): Worker {
  return new Worker(new URL('../../workers/inference.worker.ts', import.meta.url), { type: 'module', name });
}
