import type { BackendPreference } from '../runtime/backend.ts';
import { Lantern } from '../runtime/lantern.ts';
import { StaticModelSource } from '../runtime/model-source.ts';

/** Settings a URL can override (used by tests and for field debugging). */
export function backendFromUrl(search = location.search): BackendPreference {
  const value = new URLSearchParams(search).get('backend');
  return value === 'webgpu' || value === 'wasm' ? value : 'auto';
}

export function createLantern(): Lantern {
  const params = new URLSearchParams(location.search);
  return new Lantern({
    createWorker: (name) => new Worker(new URL('../../workers/inference.worker.ts', import.meta.url), { type: 'module', name }),
    models: new StaticModelSource(new URL('models/', document.baseURI).href),
    backend: backendFromUrl(),
    poolSize: Number(params.get('workers') ?? 1) || 1,
    idleMs: Number(params.get('idleMs') ?? 5 * 60_000),
  });
}
