import type { LanternError } from '../errors.ts';
import { openRegistry } from './bootstrap.ts';
import type { CandidateValidator } from './registry.ts';
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
  /**
   * Runs a release's signed golden set before it is activated (`goldenValidator(() => lantern)`);
   * without it a gated release is activated unchecked. The store a Lantern creates by default
   * gates with that Lantern.
   */
  validate?: CandidateValidator;
  /**
   * Hears each served deployment file this device refused, the copy it saved before staying in
   * use: a trust store older than that copy (`DowngradeError`: a new deployment must raise
   * `version` above every one this browser has seen), a file that does not parse. Lantern itself
   * never writes to the console (a log can leak into crash reports): pass `console.warn` while
   * developing to see why a changed deployment seems to have no effect.
   */
  onRefused?: (error: LanternError) => void;
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
      ...(options.validate ? { validate: options.validate } : {}),
      ...(globalThis.navigator?.storage ? { storage: navigator.storage } : {}),
    });
    const { onRefused } = options;
    if (onRefused) void opened.checked.then((refused) => refused.forEach((error) => onRefused(error)));
    return opened.registry;
  }, { installOnDemand: true });
}
