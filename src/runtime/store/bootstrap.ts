import { LanternError, NetworkError } from '../errors.ts';
import { latestReleases, OriginPolicy } from './catalog.ts';
import { BUILTIN_CATALOG, parseRegistryConfig, type RegistryConfig } from './config.ts';
import { ModelStore } from './model-store.ts';
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
 * A deployment file, network first: a revocation must reach the device as soon as it is online,
 * so these files are not precached by the service worker. The last copy that parsed is kept in
 * the store and used only when the network cannot answer (offline, server down).
 */
async function deploymentFile<T>(name: string, appBase: string, store: ModelStore, fetcher: typeof fetch, parse: (json: unknown) => T): Promise<T> {
  const response = await fetcher(new URL(name, appBase).href, { cache: 'no-store' }).catch(() => undefined);
  if (response?.ok) {
    // A file that is served but broken is an error to report, not a reason to fall back silently.
    const json: unknown = await response.json().catch(() => undefined);
    const parsed = parse(json);
    await store.saveDeploymentFile(name, json);
    return parsed;
  }
  const cached = await store.deploymentFile(name);
  if (cached === undefined) throw new NetworkError('The model registry configuration could not be loaded.');
  return parse(cached);
}

export async function openRegistry(appBase: string, options: { fetch?: typeof fetch; storage?: StorageManagerLike; dbName?: string; validate?: CandidateValidator; mayDownload?: () => boolean } = {}): Promise<OpenedRegistry> {
  const fetcher = options.fetch ?? fetch.bind(globalThis);
  const store = await ModelStore.open(options.dbName);
  const [config, trust] = await Promise.all([
    deploymentFile('registry-config.json', appBase, store, fetcher, parseRegistryConfig),
    deploymentFile('trust-store.json', appBase, store, fetcher, TrustStore.parse),
  ]);
  const registry = new ModelRegistry({
    store,
    trust,
    policy: new OriginPolicy(new URL(appBase).origin, config.allowedOrigins),
    catalogUrl: new URL(config.catalogUrl, appBase).href,
    fetch: fetcher,
    storage: options.storage,
    validate: options.validate,
  });
  // Revocation reaches installed versions at every start, before anything runs.
  await registry.applyTrust(trust);
  const refreshTrust = async () => registry.applyTrust(await deploymentFile('trust-store.json', appBase, store, fetcher, TrustStore.parse));
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
