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
  /**
   * Settles when the start's network checks are done: deployment files that answered after the
   * start went on without them (a late trust store is applied then), and the built-in releases.
   * Resolves with what failed: a late deployment file served broken (the saved copy stays in
   * use), built-in models that could not be installed (e.g. first start offline).
   */
  checked: Promise<LanternError[]>;
  /**
   * Installs the built-in models the start could not (a first visit whose connection dropped):
   * what the start did, asked again, e.g. when the connection comes back. Resolves with what failed.
   */
  installMissingBuiltins(): Promise<LanternError[]>;
}

/**
 * How long a start waits for the network when it can go on without it (a saved deployment file,
 * models already installed). A healthy link answers these small files well within it, even at a
 * 300 ms round trip. A link that connects and then stays silent (weak signal, captive portal)
 * would otherwise hold the app until the stall timeout, 30 s per request. The answer is still
 * used when it comes.
 */
const NETWORK_WAIT_MS = 2000;

const asLanternError = (error: unknown): LanternError => (error instanceof LanternError ? error : new LanternError(String(error)));

type Outcome<T> = { value: T } | { error: unknown };
const outcomeOf = <T>(work: Promise<T>): Promise<Outcome<T>> => work.then((value) => ({ value }), (error: unknown) => ({ error }));

/** `outcome` if it settles within `ms`; 'late' if not (the work goes on). */
async function within<T>(outcome: Promise<T>, ms: number): Promise<T | 'late'> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ms)));
  try {
    return await Promise.race([outcome, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** A deployment file as a start uses it: `value` now, and the network's answer if it came later. */
interface DeploymentFile<T> {
  value: T;
  /**
   * What the network answered after `value` was settled on: the file (it is saved), or why it
   * is broken (reported; the saved copy stays in use). Undefined when nothing came late.
   */
  late: Promise<Outcome<T> | undefined>;
}

/**
 * A deployment file from the app's own origin, network first: a revocation must reach the device
 * as soon as it is online, so these files are not precached by the service worker. The last copy
 * that parsed is kept in the store and used when the network cannot answer (offline, server
 * down) or, given `waitMs`, does not answer within it; a file that is served but broken is an
 * error to report, not a reason to fall back.
 */
async function deploymentFile<T>(name: string, appBase: string, store: ModelStore, net: NetContext, parse: (json: unknown) => T, waitMs?: number): Promise<DeploymentFile<T>> {
  const fetched = outcomeOf((async () => {
    const bytes = await fetchDocument(net, { url: new URL(name, appBase).href, what: name, cache: 'no-store', limit: DOCUMENT_LIMITS.configuration });
    const json = parseJsonDocument(bytes, name);
    const parsed = parse(json);
    await store.saveDeploymentFile(name, json);
    return parsed;
  })());
  const saved = await store.deploymentFile(name);
  // Without a saved copy (a first start) only the network can answer: it is waited for.
  const outcome = saved !== undefined && waitMs !== undefined ? await within(fetched, waitMs) : await fetched;
  const none = Promise.resolve(undefined);
  if (outcome === 'late') {
    // A late network failure is as offline: the saved copy stands, nothing to report.
    const late = fetched.then((answer) => ('error' in answer && answer.error instanceof NetworkError ? undefined : answer));
    return { value: parse(saved), late };
  }
  if ('value' in outcome) return { value: outcome.value, late: none };
  if (!(outcome.error instanceof NetworkError)) throw outcome.error;
  if (saved === undefined) throw new NetworkError('The model registry configuration could not be loaded.', {}, { cause: outcome.error });
  return { value: parse(saved), late: none };
}

export async function openRegistry(appBase: string, options: { fetch?: typeof fetch; storage?: StorageManagerLike; dbName?: string; validate?: CandidateValidator; mayDownload?: () => boolean; installBuiltins?: boolean; networkWaitMs?: number } = {}): Promise<OpenedRegistry> {
  const fetcher = options.fetch ?? fetch.bind(globalThis);
  const appOrigin = new URL(appBase).origin;
  const own: NetContext = { policy: new OriginPolicy(appOrigin), fetch: fetcher };
  const waitMs = options.networkWaitMs ?? NETWORK_WAIT_MS;
  const store = await ModelStore.open(options.dbName);
  const [config, trust] = await Promise.all([
    deploymentFile('registry-config.json', appBase, store, own, parseRegistryConfig, waitMs),
    deploymentFile('trust-store.json', appBase, store, own, TrustStore.parse, waitMs),
  ]);
  const registry = new ModelRegistry({
    store,
    trust: trust.value,
    policy: new OriginPolicy(appOrigin, config.value.allowedOrigins),
    catalogUrl: new URL(config.value.catalogUrl, appBase).href,
    fetch: fetcher,
    storage: options.storage,
    validate: options.validate,
  });
  // Revocation reaches installed versions at every start, before anything runs; on a link too
  // slow to answer in time, the moment its answer arrives. (A late configuration applies from
  // the next start.)
  await registry.applyTrust(trust.value);
  const lateTrust = trust.late.then(async (late): Promise<Outcome<void> | undefined> => (late && 'value' in late ? outcomeOf(registry.applyTrust(late.value)) : late));
  const refreshTrust = async () => registry.applyTrust((await deploymentFile('trust-store.json', appBase, store, own, TrustStore.parse)).value);
  const lateFiles = Promise.all([config.late, lateTrust]).then((answers) => answers.flatMap((answer) => (answer && 'error' in answer ? [asLanternError(answer.error)] : [])));
  // An embedding app installs models on demand (Lantern.load) instead of all built-ins up front.
  if (options.installBuiltins === false) return { registry, config: config.value, refreshTrust, checked: lateFiles, installMissingBuiltins: async () => [] };
  const installMissingBuiltins = () => installBuiltins(registry, new URL(BUILTIN_CATALOG, appBase).href, options.mayDownload);
  const builtins = installMissingBuiltins();
  // A first start has nothing to run without the built-ins; a device with models installed
  // waits for the list only as long as for the files above (a newer built-in installs when it comes).
  if ((await store.versions()).length === 0) await builtins;
  else await within(outcomeOf(builtins), waitMs);
  // Settles either way: nothing need be waiting for it.
  const checked = Promise.all([lateFiles, builtins.catch((error: unknown) => [asLanternError(error)])]).then(([late, errors]) => [...late, ...errors]);
  return { registry, config: config.value, refreshTrust, checked, installMissingBuiltins };
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
