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
  /** Built-in models that could not be installed (e.g. first start while offline). */
  builtinErrors: LanternError[];
}

/** The deployment's configuration files, from the app's own origin. */
async function fetchConfiguration(url: string, net: NetContext): Promise<unknown> {
  const what = url.slice(url.lastIndexOf('/') + 1);
  return parseJsonDocument(await fetchDocument(net, { url, what, cache: 'no-cache', limit: DOCUMENT_LIMITS.configuration }), what);
}

export async function openRegistry(appBase: string, options: { fetch?: typeof fetch; storage?: StorageManagerLike; dbName?: string; validate?: CandidateValidator; mayDownload?: () => boolean } = {}): Promise<OpenedRegistry> {
  const fetcher = options.fetch ?? fetch.bind(globalThis);
  const appOrigin = new URL(appBase).origin;
  const own: NetContext = { policy: new OriginPolicy(appOrigin), fetch: fetcher };
  const [configJson, trustJson, store] = await Promise.all([
    fetchConfiguration(new URL('registry-config.json', appBase).href, own),
    fetchConfiguration(new URL('trust-store.json', appBase).href, own),
    ModelStore.open(options.dbName),
  ]);
  const config = parseRegistryConfig(configJson);
  const registry = new ModelRegistry({
    store,
    trust: TrustStore.parse(trustJson),
    policy: new OriginPolicy(appOrigin, config.allowedOrigins),
    catalogUrl: new URL(config.catalogUrl, appBase).href,
    fetch: fetcher,
    storage: options.storage,
    validate: options.validate,
  });
  return { registry, config, builtinErrors: await installBuiltins(registry, new URL(BUILTIN_CATALOG, appBase).href, options.mayDownload) };
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
