import { openRegistry } from './bootstrap.ts';
import { StoreModelSource } from './store-model-source.ts';

export interface SignedStoreOptions {
  /**
   * Where the deployment's `registry-config.json` and `trust-store.json` are served (the files
   * `npm run build` emits; see docs/API.md). Default: the page's base URL.
   */
  base?: string;
  /** IndexedDB database name; two stores on one origin need different names. */
  dbName?: string;
  fetch?: typeof fetch;
}

/**
 * The default model source: Ed25519-signed releases, verified chunk by chunk, kept in IndexedDB.
 * Opens on first use; a model is installed from the catalog the first time it is loaded.
 */
export function signedStore(options: SignedStoreOptions = {}): StoreModelSource {
  return new StoreModelSource(async () => {
    const base = options.base ?? document.baseURI;
    const opened = await openRegistry(base, {
      installBuiltins: false,
      ...(options.dbName ? { dbName: options.dbName } : {}),
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(globalThis.navigator?.storage ? { storage: navigator.storage } : {}),
    });
    return opened.registry;
  }, { installOnDemand: true });
}
