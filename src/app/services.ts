import { Lantern } from '../runtime/lantern.ts';
import { StaticModelSource } from '../runtime/model-source.ts';
import { backendFromUrl } from './url-settings.ts';

/**
 * Everything the views share, created once at start-up. Views receive this object instead of
 * reaching for globals, so tests and future screens can build their own.
 */
export interface Services {
  lantern: Lantern;
}

export function createServices(): Services {
  const params = new URLSearchParams(location.search);
  const lantern = new Lantern({
    createWorker: (name) => new Worker(new URL('../../workers/inference.worker.ts', import.meta.url), { type: 'module', name }),
    models: new StaticModelSource(new URL('models/', document.baseURI).href),
    backend: backendFromUrl(),
    poolSize: Number(params.get('workers') ?? 1) || 1,
    idleMs: Number(params.get('idleMs') ?? 5 * 60_000),
  });
  return { lantern };
}
