import { LanternError, NetworkError, ValidationError } from '../errors.ts';
import { latestReleases } from './catalog.ts';
import { BUILTIN_CATALOG, FALLBACK_CONFIG, parseRegistryConfig, type RegistryConfig } from './config.ts';
import { assertTrustStoreNewer } from './floors.ts';
import { ModelStore } from './model-store.ts';
import { DOCUMENT_LIMITS, fetchDocument, isRetryable, OriginPolicy, parseJsonDocument, pause, type NetContext } from './net.ts';
import { ModelRegistry, type CandidateValidator, type StorageManagerLike } from './registry.ts';
import { TrustStore, trustStoreStamp } from './trust.ts';
import type { KeyValueStorage } from '../release/stored-value.ts';

/**
 * Start-up: read the deployment's registry configuration and trust store, open the store, and
 * install the built-in releases shipped with the app (first start, or a newer built-in after an
 * app update). Built-ins go through the same signature and hash checks as any download.
 */
export interface OpenedRegistry {
  registry: ModelRegistry;
  config: RegistryConfig;
  /**
   * Fetches trust-store.json again and re-checks installed versions against it (revocation).
   * Rejects with why a served trust store was not used (broken; older than, or a different file
   * at the version of, the one accepted before): the one in use stays, installed versions answer.
   * With `unlessFetchedWithinMs`, a trust store the network gave that recently (the start's
   * included) is fresh enough: no request (the automatic update check that runs at start).
   */
  refreshTrust(options?: { unlessFetchedWithinMs?: number }): Promise<void>;
  /**
   * Settles when the start's network checks are done: deployment files that answered after the
   * start went on without them (a late trust store is applied then), and the built-in releases.
   * Resolves with what failed: a deployment file served broken or refused (a trust store older
   * than the saved one), on time or late, or a saved copy that no longer parses (the saved copy,
   * or failing that the narrowest fallback, stays in use); built-in models that could not be
   * installed (e.g. first start offline).
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

/**
 * A first start has nothing but the network to go on: a request the link dropped (what the
 * downloader retries too, `isRetryable`) is asked again after each of these waits before the start
 * fails (offline, it fails in ~3 s, and says so).
 */
const FIRST_START_RETRIES_MS: readonly number[] = [1000, 2000];

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
  /**
   * The network's answer, else the saved copy. Undefined when neither can be used (a saved copy
   * this version of the app no longer parses, and no usable answer in time): the caller decides
   * what is safe without the file.
   */
  value: T | undefined;
  /** Whether `value` is the network's answer, fetched now (not the saved copy). */
  fetched: boolean;
  /**
   * Why a copy at hand was not used, to report: the network's answer (served broken, or refused
   * as older than the saved one), or a saved copy that no longer parses. Offline is not in it.
   */
  refused: LanternError[];
  /**
   * What the network answered after `value` was settled on: the file (it is saved), or why it
   * is broken or refused (reported; the saved copy stays in use). Undefined when nothing came late.
   */
  late: Promise<Outcome<T> | undefined>;
}

/** The saved copy, parsed by this version of the app; a copy it can no longer parse is an error to report. */
function parseSaved<T>(name: string, json: unknown, parse: (json: unknown) => T): Outcome<T> | undefined {
  if (json === undefined) return undefined;
  try {
    return { value: parse(json) };
  } catch (error) {
    return { error: new ValidationError(`The copy of ${name} saved on this device can no longer be read: ${asLanternError(error).message}`, {}, { cause: error }) };
  }
}

/**
 * A deployment file from the app's own origin, network first: a revocation must reach the device
 * as soon as it is online, so these files are not precached by the service worker. The last copy
 * accepted is kept in the store and used when the network cannot answer (offline, server down),
 * or, given `waitMs`, does not answer within it, or answers with a file that is broken or that
 * `accept` refuses against the saved copy (a trust store older than it); the refusal is reported.
 * Falling back is no weaker than what an attacker on the link gets by dropping the request, which
 * already yields the saved copy; and a deployer's broken file must not stop a device that has
 * models installed. Only a first start, with no saved copy, fails: it has nothing else to go on.
 */
async function deploymentFile<T>(name: string, appBase: string, store: ModelStore, net: NetContext, parse: (json: unknown) => T, options: { waitMs?: number; retriesMs?: readonly number[]; accept?: (json: unknown, saved: unknown) => void } = {}): Promise<DeploymentFile<T>> {
  const { waitMs, accept } = options;
  const fetchFile = () => outcomeOf((async () => {
    const bytes = await fetchDocument(net, { url: new URL(name, appBase).href, what: `the deployment file ${name}`, cache: 'no-store', limit: DOCUMENT_LIMITS.configuration });
    const json = parseJsonDocument(bytes, name);
    const parsed = parse(json);
    await store.acceptDeploymentFile(name, json, (saved) => accept?.(json, saved));
    return parsed;
  })());
  let fetched = fetchFile();
  const saved = parseSaved(name, await store.deploymentFile(name), parse);
  if (saved === undefined) {
    // Without a saved copy (a first start) only the network can answer: it is waited for, and asked again.
    for (const retryMs of options.retriesMs ?? FIRST_START_RETRIES_MS) {
      const answer = await fetched;
      if (!('error' in answer && isRetryable(answer.error))) break;
      await pause(retryMs);
      fetched = fetchFile();
    }
  }
  const outcome = saved !== undefined && waitMs !== undefined ? await within(fetched, waitMs) : await fetched;
  const none = Promise.resolve(undefined);
  if (outcome !== 'late' && 'value' in outcome) return { value: outcome.value, fetched: true, refused: [], late: none };
  if (saved === undefined) {
    // Only reached with the network's answer in hand (nothing saved: it was waited for).
    const error = outcome === 'late' ? undefined : outcome.error;
    if (error !== undefined && !(error instanceof NetworkError)) throw error;
    const why = error ? (error as Error).message : `The deployment file ${name} did not arrive.`;
    throw new NetworkError(`${why} This device has no saved copy of it to start from.`, {}, { cause: error });
  }
  // The saved copy stands. A network failure is as offline: nothing to report, now or late.
  const refused = [
    ...('error' in saved ? [asLanternError(saved.error)] : []),
    ...(outcome !== 'late' && !(outcome.error instanceof NetworkError) ? [asLanternError(outcome.error)] : []),
  ];
  const late = outcome === 'late' ? fetched.then((answer) => ('error' in answer && answer.error instanceof NetworkError ? undefined : answer)) : none;
  return { value: 'value' in saved ? saved.value : undefined, fetched: false, refused, late };
}

/** The deployment file that names the keys the device trusts. */
const TRUST_STORE = 'trust-store.json';

/** The trust store's rollback rule, held against the copy saved on the device. */
const acceptTrustStore = (json: unknown, saved: unknown): void => assertTrustStoreNewer(saved === undefined ? undefined : trustStoreStamp(saved), trustStoreStamp(json));

export async function openRegistry(appBase: string, options: { fetch?: typeof fetch; storage?: StorageManagerLike; noticeStorage?: KeyValueStorage; dbName?: string; validate?: CandidateValidator; mayDownload?: () => boolean; installBuiltins?: boolean; networkWaitMs?: number; firstStartRetriesMs?: readonly number[] } = {}): Promise<OpenedRegistry> {
  const fetcher = options.fetch ?? fetch.bind(globalThis);
  const appOrigin = new URL(appBase).origin;
  const own: NetContext = { policy: new OriginPolicy(appOrigin), fetch: fetcher };
  const waitMs = options.networkWaitMs ?? NETWORK_WAIT_MS;
  const retriesMs = options.firstStartRetriesMs;
  const store = await ModelStore.open(options.dbName);
  const [config, trust] = await Promise.all([
    deploymentFile('registry-config.json', appBase, store, own, parseRegistryConfig, { waitMs, retriesMs }),
    deploymentFile(TRUST_STORE, appBase, store, own, TrustStore.parse, { waitMs, retriesMs, accept: acceptTrustStore }),
  ]);
  const configuration = config.value ?? FALLBACK_CONFIG;
  const registry = new ModelRegistry({
    store,
    // Without a trust store it can read, the device trusts no key for anything new: nothing
    // installs or updates until one arrives (failing closed).
    trust: trust.value ?? new TrustStore({ keys: [] }),
    policy: new OriginPolicy(appOrigin, configuration.allowedOrigins),
    catalogUrl: new URL(configuration.catalogUrl, appBase).href,
    fetch: fetcher,
    storage: options.storage,
    noticeStorage: options.noticeStorage,
    validate: options.validate,
    savedTrust: async () => {
      const saved = parseSaved(TRUST_STORE, await store.deploymentFile(TRUST_STORE), TrustStore.parse);
      return saved && 'value' in saved ? saved.value : undefined;
    },
  });
  // Revocation reaches installed versions at every start, before anything runs; on a link too
  // slow to answer in time, the moment its answer arrives. (A late configuration applies from
  // the next start.) Without a readable trust store the verdicts the last readable one gave
  // stand: installed versions, verified then, keep answering and revoked ones stay revoked.
  // Re-checking against no key at all would disable every model for a file the device cannot
  // read, a state an app update (a stricter schema) causes, not an attacker.
  if (trust.value) await registry.applyTrust(trust.value);
  /** When the network last gave the trust store in use (undefined: only a saved copy so far). */
  let trustFetchedAt = trust.fetched ? Date.now() : undefined;
  const lateTrust = trust.late.then(async (late): Promise<Outcome<void> | undefined> => {
    if (!late || !('value' in late)) return late;
    trustFetchedAt = Date.now();
    return outcomeOf(registry.applyTrust(late.value));
  });
  const refreshTrust = async ({ unlessFetchedWithinMs }: { unlessFetchedWithinMs?: number } = {}) => {
    if (unlessFetchedWithinMs !== undefined && trustFetchedAt !== undefined && Date.now() - trustFetchedAt < unlessFetchedWithinMs) return;
    const file = await deploymentFile(TRUST_STORE, appBase, store, own, TrustStore.parse, { accept: acceptTrustStore });
    if (file.fetched) trustFetchedAt = Date.now();
    if (file.value) await registry.applyTrust(file.value);
    // A trust store served broken or refused leaves the one in use standing; the caller hears why.
    const [refused] = file.refused;
    if (refused) throw refused;
  };
  const refused = [...config.refused, ...trust.refused];
  const lateFiles = Promise.all([config.late, lateTrust]).then((answers) => [...refused, ...answers.flatMap((answer) => (answer && 'error' in answer ? [asLanternError(answer.error)] : []))]);
  // An embedding app installs models on demand (Lantern.load) instead of all built-ins up front.
  if (options.installBuiltins === false) return { registry, config: configuration, refreshTrust, checked: lateFiles, installMissingBuiltins: async () => [] };
  const installMissingBuiltins = () => installBuiltins(registry, new URL(BUILTIN_CATALOG, appBase).href, options.mayDownload);
  const builtins = installMissingBuiltins();
  // A first start has nothing to run without the built-ins; a device with models installed
  // waits for the list only as long as for the files above (a newer built-in installs when it comes).
  if ((await store.versions()).length === 0) await builtins;
  else await within(outcomeOf(builtins), waitMs);
  // Settles either way: nothing need be waiting for it.
  const checked = Promise.all([lateFiles, builtins.catch((error: unknown) => [asLanternError(error)])]).then(([late, errors]) => [...late, ...errors]);
  return { registry, config: configuration, refreshTrust, checked, installMissingBuiltins };
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
