import { Lantern } from '../runtime/lantern.ts';
import { openRegistry, type OpenedRegistry } from '../runtime/store/bootstrap.ts';
import { StoreModelSource } from '../runtime/store/store-model-source.ts';
import { PwaController } from './pwa.ts';
import { backendFromUrl } from './url-settings.ts';

/**
 * Everything the views share, created once at start-up. Views receive this object instead of
 * reaching for globals, so tests and future screens can build their own.
 */
export interface Services {
  lantern: Lantern;
  /** The signed model store, once the built-in models are installed (first start) or found. */
  models: Promise<OpenedRegistry>;
  pwa: PwaController;
}

export function createServices(): Services {
  const params = new URLSearchParams(location.search);
  const models = openRegistry(document.baseURI, { storage: navigator.storage });
  const lantern = new Lantern({
    createWorker: (name) => new Worker(new URL('../../workers/inference.worker.ts', import.meta.url), { type: 'module', name }),
    models: new StoreModelSource(models.then((m) => m.registry)),
    backend: backendFromUrl(),
    poolSize: Number(params.get('workers') ?? 1) || 1,
    idleMs: Number(params.get('idleMs') ?? 5 * 60_000),
  });
  const pwa = new PwaController();
  pwa.start();
  return { lantern, pwa, models };
}
