import { LanternError, NetworkError } from '../errors.ts';
import { latestReleases } from './catalog.ts';
import { BUILTIN_CATALOG, parseRegistryConfig, type RegistryConfig } from './config.ts';
import { ModelStore } from './model-store.ts';
import { DOCUMENT_LIMITS, fetchDocument, OriginPolicy, parseJsonDocument, type NetContext } from './net.ts';
import { ModelRegistry, type CandidateValidator, type StorageManagerLike } from './registry.ts';
import { TrustStore } from './trust.ts';

/**
 * Start-up: read the deployment's registry configuration and trust store, open the store, and
 * install the built-in releases shipped with the app (first start, or a newer built-in after an
 * app update). Built-ins go through the same signature and hash checks as any download.
 */
export interface OpenedRegistry {
  registry: ModelRegistry;
  config: RegistryConfig;
  /** Fetches trust-store.json again and re-checks installed versions against it (revocation). */
  refreshTrust(): Promise<void>;
  /** Built-in models that could not be installed (e.g. first start while offline). */
  builtinErrors: LanternError[];
}

/**
 * A deployment file from the app's own origin, network first: a revocation must reach the device
 * as soon as it is online, so these files are not precached by the service worker. The last copy
 * that parsed is kept in the store and used only when the network cannot answer (offline, server
 * down); a file that is served but broken is an error to report, not a reason to fall back.
 */
async function deploymentFile<T>(name: string, appBase: string, store: ModelStore, net: NetContext, parse: (json: unknown) => T): Promise<T> {
  let bytes: Uint8Array;
  try {
    bytes = await fetchDocument(net, { url: new URL(name, appBase).href, what: name, cache: 'no-store', limit: DOCUMENT_LIMITS.configuration });
  } catch (error) {
    if (!(error instanceof NetworkError)) throw error;
    const cached = await store.deploymentFile(name);
    if (cached === undefined) throw new NetworkError('The model registry configuration could not be loaded.', {}, { cause: error });
    return parse(cached);
  }
  const json = parseJsonDocument(bytes, name);
  const parsed = parse(json);
  await store.saveDeploymentFile(name, json);
  return parsed;
}

export async function openRegistry(appBase: string, options: { fetch?: typeof fetch; storage?: StorageManagerLike; dbName?: string; validate?: CandidateValidator; mayDownload?: () => boolean; installBuiltins?: boolean } = {}): Promise<OpenedRegistry> {
  const fetcher = options.fetch ?? fetch.bind(globalThis);
  const appOrigin = new URL(appBase).origin;
  const own: NetContext = { policy: new OriginPolicy(appOrigin), fetch: fetcher };
  const store = await ModelStore.open(options.dbName);
  const [config, trust] = await Promise.all([
    deploymentFile('registry-config.json', appBase, store, own, parseRegistryConfig),
    deploymentFile('trust-store.json', appBase, store, own, TrustStore.parse),
  ]);
  const registry = new ModelRegistry({
    store,
    trust,
    policy: new OriginPolicy(appOrigin, config.allowedOrigins),
    catalogUrl: new URL(config.catalogUrl, appBase).href,
    fetch: fetcher,
    storage: options.storage,
    validate: options.validate,
  });
  // Revocation reaches installed versions at every start, before anything runs.
  await registry.applyTrust(trust);
  const refreshTrust = async () => registry.applyTrust(await deploymentFile('trust-store.json', appBase, store, own, TrustStore.parse));
  // An embedding app installs models on demand (Lantern.load) instead of all built-ins up front.
  if (options.installBuiltins === false) return { registry, config, refreshTrust, builtinErrors: [] };
  return { registry, config, refreshTrust, builtinErrors: await installBuiltins(registry, new URL(BUILTIN_CATALOG, appBase).href, options.mayDownload) };
}

/**
 * Installs each built-in model never seen before, or updates one whose built-in release is newer.
 * First installs always happen (the app is useless without them and the user just opened it);
 * updates are automatic downloads, so they wait until `mayDownload` (the data policy) allows.
 */
export async function installBuiltins(registry: ModelRegistry, catalogUrl: string, mayDownload: () => boolean = () => true): Promise<LanternError[]> {
  const errors: LanternError[] = [];
  let releases;
  try {
    releases = latestReleases(await registry.catalog(catalogUrl));
  } catch (error) {
    return [error instanceof LanternError ? error : new NetworkError('The built-in model list could not be read.')];
  }
  for (const release of releases.values()) {
    const highest = await registry.store.highestSequence(release.id);
    const installed = await registry.store.pointer(release.id);
    // A model the user removed stays removed (its highest sequence is remembered).
    const wanted = highest === undefined || (installed !== undefined && release.sequence > highest && mayDownload());
    if (!wanted) continue;
    await registry.install(release).catch((error: unknown) => {
      errors.push(error instanceof LanternError ? error : new NetworkError(`${release.id} could not be installed.`));
    });
  }
  return errors;
}
