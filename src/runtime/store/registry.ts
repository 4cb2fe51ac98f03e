import { IntegrityError, ModelLoadError, SignatureError } from '../errors.ts';
import type { BundleSource } from './bundle.ts';
import { catalogSignatureUrl, releasesOf, type Release } from './catalog.ts';
import type { TransferProgress } from './chunk-writer.ts';
import { sha256Hex } from './bytes.ts';
import { DOCUMENT_LIMITS, fetchSigned, type NetContext, type OriginPolicy } from './net.ts';
import type { Installer } from './installer.ts';
import { parseManifest, versionKey, type Manifest } from './manifest.ts';
import { type InstallMode, type CatalogSource, type ModelStore, type PointerRecord, type VersionRecord, type Withdrawal } from './model-store.ts';
import { parseSignatureFile, type SignatureFile, type TrustStore } from './trust.ts';
import { verifyCatalog } from './signed-documents.ts';
import { readVerified, type VerifiedRead } from './verified-read.ts';
import { Listeners } from '../listeners.ts';
import { importForAction } from '../field/lazy-chunk.ts';
import { StoredValue, type KeyValueStorage } from '../release/stored-value.ts';
import { DAMAGED_REASON, REVOKED_REASON } from './reasons.ts';
import { z } from 'zod/mini';

/**
 * The model registry's front door: installs releases (installer.ts: verified, moved into the store
 * from the network or a sideloaded bundle, gated, activated), manages installed versions, applies
 * the trust store to them, and reads active versions back verified. Framework-free; the Models
 * screen and the store-backed model source both sit on it.
 */

export interface StorageManagerLike {
  estimate(): Promise<{ usage?: number; quota?: number }>;
  persist?(): Promise<boolean>;
  persisted?(): Promise<boolean>;
}

/** What the Models screen shows of this device's storage. */
export interface StorageState {
  usage?: number;
  quota?: number;
  modelBytes: number;
  /**
   * Whether the browser keeps the models when the device runs low on space (persistent storage);
   * undefined where it cannot say. Without it, a browser may evict everything of this origin,
   * and a device in the field would be left with no model until it is online again.
   */
  persisted?: boolean;
}

export interface RegistryOptions {
  store: ModelStore;
  trust: TrustStore;
  policy: OriginPolicy;
  /** Where updates are listed (an allowed origin). */
  catalogUrl?: string;
  fetch?: typeof fetch;
  /** No byte for this long fails a request with a resumable NetworkError (net.ts default: 30 s). */
  stallMs?: number;
  storage?: StorageManagerLike;
  retries?: number;
  backoffMs?: number;
  /**
   * Runs a release's golden set on the candidate before it may become active. Supplied by the
   * app (it needs a worker); the store itself holds no inference code.
   */
  validate?: CandidateValidator;
  /**
   * The trust store saved on this device: the last one any window of the app accepted (bootstrap
   * saves it). Read when another window says it adopted one.
   */
  savedTrust?: () => Promise<TrustStore | undefined>;
  /**
   * Where the notices not yet dismissed are kept (localStorage in the app), so that a window
   * opened after the change, or the app reopened, still tells its user. Without it they last as
   * long as the window.
   */
  noticeStorage?: KeyValueStorage;
}

/**
 * What a registry's subscribers are told: the store changed (a version installed, activated, rolled
 * back, quarantined, revoked...), here or in another window, or only a download here progressed.
 */
export type RegistryChange = 'store' | 'progress';

/**
 * What a registry tells the other windows on its store after a change: whether the trust store in
 * use changed, and what their users must be told of it (the version they were using rolled back,
 * quarantined, revoked...), since they answer with the store's new active version too; and which
 * notices its user dismissed, so that one user is not asked to dismiss the same news twice.
 */
interface StoreMessage {
  trust: boolean;
  notices: RegistryNotice[];
  dismissed: RegistryNotice[];
}

/** What a change tells (ModelRegistry.changed): nothing beyond the change itself unless said. */
export type StoreNews = Partial<StoreMessage>;

/**
 * Builds before this message carried notices posted `null`, then a bare 'store' or 'trust';
 * builds before dismissals were told sent no `dismissed`.
 */
function readStoreMessage(data: Partial<StoreMessage> | string | null): StoreMessage {
  if (data === null || typeof data !== 'object') return { trust: data === 'trust', notices: [], dismissed: [] };
  return { trust: data.trust ?? false, notices: data.notices ?? [], dismissed: data.dismissed ?? [] };
}

/** The same news, whichever window's copy of it this is (a posted notice arrives as a copy). */
const sameNotice = (a: RegistryNotice, b: RegistryNotice): boolean =>
  a.kind === b.kind && a.id === b.id && a.version === b.version && a.fallbackVersion === b.fallbackVersion && a.reason === b.reason;

export interface GoldenOutcome {
  total: number;
  correct: number;
  /** Items whose run failed (any error): one is enough to reject the release. */
  failed: number;
  /**
   * The candidate hung: a run of it, given up at its deadline, kept a worker busy until that worker
   * was restarted. A verdict on its own (the release is refused), whatever the counts say.
   */
  hung?: true;
  /** The candidate's model could not be loaded (ModelLoadError, or its worker died twice): a verdict on its own. */
  unloadable?: true;
}
/**
 * Judges a downloaded release before it is activated: loads it, then runs its golden set if it
 * has one (`manifest.validation`). Called for a release with a golden set, and for one that would
 * replace an active version (installer.ts, gate). It throws only when it could not judge
 * (gateHasNoVerdict): the caller cancelled, the request queue was full, ONNX Runtime could not
 * start, or a run went past its time (counted from dispatch) without hanging a worker. Anything
 * else it throws is taken as a failed check: every item failed, or, without a golden set, the
 * model could not be loaded.
 */
export type CandidateValidator = (manifest: Manifest, read: VerifiedRead & { ok: true }, signal?: AbortSignal) => Promise<GoldenOutcome>;

/** Something the user must be told about that happened outside any button they pressed. */
const NoticeSchema = z.object({
  /**
   * quarantined: failed re-verification; rejected: failed its validation gate; rolled-back: failed
   * in real use; revoked: the trust store no longer vouches for it (REVOKED_REASON); not-shadowed: its
   * manifest asked for shadow evaluation but its labels differ from the version it replaced, so
   * it was activated as an ordinary update (release/shadow.ts, comparableInShadow); withdrawn: its
   * publisher took it back (a signed catalog), and withdrawn-kept: likewise, but it keeps
   * answering, as no other version can.
   */
  kind: z.enum(['quarantined', 'rejected', 'rolled-back', 'revoked', 'not-shadowed', 'withdrawn', 'withdrawn-kept']),
  id: z.string(),
  version: z.string(),
  /** The version now answering instead, if there is one. */
  fallbackVersion: z.optional(z.string()),
  /** Why: a fixed sentence (never input), or the reason a publisher's signed catalog gives for a withdrawal. */
  reason: z.optional(z.string()),
});
export type RegistryNotice = z.infer<typeof NoticeSchema>;

/** Notices kept for later windows: the newest, should nobody dismiss them for a long while. */
const KEPT_NOTICES = 20;

export interface Transfer {
  id: string;
  version: string;
  progress: TransferProgress;
}

export interface ModelOverview {
  id: string;
  title: string;
  pointer?: PointerRecord;
  /** Highest sequence ever activated: only a release above it is an update. */
  highestSequence?: number;
  /** When the active (or newest) release stops being installable; it keeps answering after. */
  expiresAt?: string;
  versions: VersionRecord[];
}

export class ModelRegistry {
  private readonly listeners = new Listeners<[RegistryChange]>();
  /**
   * The other tabs and windows of this app on the same store (the installed app beside a browser
   * tab). A change made in one is told to the listeners of all, so each one's Models screen,
   * release controls and runtime read the store again, instead of answering with a version
   * another window rolled back, quarantined or revoked until its next reload.
   */
  private readonly otherTabs?: BroadcastChannel;
  private readonly transfers = new Map<string, Transfer>();
  private readonly net: NetContext;
  private installerLoad?: Promise<Installer>;
  private trust: TrustStore;
  /** Where this window keeps the notices it tells of (see noticeStorage). */
  private readonly keptNotices: StoredValue<RegistryNotice[]>;
  /** What the user has not dismissed yet, oldest first: the same in every window. */
  private pending: RegistryNotice[];

  constructor(private readonly options: RegistryOptions) {
    this.net = { policy: options.policy, fetch: options.fetch ?? fetch.bind(globalThis), ...(options.stallMs ? { stallMs: options.stallMs } : {}) };
    this.trust = options.trust;
    this.keptNotices = new StoredValue(options.noticeStorage, `lantern.notices:${options.store.name}`, z.array(NoticeSchema), []);
    this.pending = this.keptNotices.value;
    if (typeof BroadcastChannel === 'function') {
      this.otherTabs = new BroadcastChannel(`lantern-store:${options.store.name}`);
      this.otherTabs.onmessage = (event: MessageEvent<Partial<StoreMessage> | string | null>) => {
        const message = readStoreMessage(event.data);
        // The window that made the change has kept it: this one only follows.
        this.updateNotices(message, false);
        this.listeners.notify('store');
        if (message.trust) void this.adoptSavedTrust();
      };
    }
    // Sequence floors set by a key stop counting once the trust store no longer trusts it for that id.
    options.store.useKeyPolicy((keyId, id) => this.trust.allows(keyId, id));
  }

  /**
   * Adopts a (possibly changed) trust store and re-checks every installed version against its
   * keys and scopes: a version whose key no longer vouches for its model is revoked (never runs,
   * never a rollback target), an active one hands over to a still-trusted version, and the user
   * is told. Called at start and whenever the deployment's trust store changes.
   */
  async applyTrust(trust: TrustStore): Promise<void> {
    this.trust = trust;
    const { store } = this.options;
    const verdicts = new Map<string, boolean>();
    for (const version of await store.versions()) {
      const record = await store.manifest(version.key);
      verdicts.set(version.key, record !== undefined && await this.vouchedFor(version.id, record.bytes, record.signatures));
    }
    const revoked = await store.applyTrustVerdicts(verdicts);
    const notices = revoked.filter((r) => r.wasActive).map((r): RegistryNotice => ({ kind: 'revoked', id: r.id, version: r.version, reason: REVOKED_REASON, ...(r.fallback ? { fallbackVersion: r.fallback } : {}) }));
    this.changed({ trust: true, notices });
  }

  /**
   * Another window adopted a trust store, which it saved in the store both share: this one adopts
   * it at once, so a key revoked there vouches here for nothing more (a sideloaded bundle, an
   * install) before this window's own next check. The same keys are not applied again: that
   * would tell the other windows once more, and so on back and forth. A saved copy this window
   * cannot read leaves the one in use standing until its next check fetches one.
   */
  private async adoptSavedTrust(): Promise<void> {
    try {
      const saved = await this.options.savedTrust?.();
      if (saved && !saved.sameTrust(this.trust)) await this.applyTrust(saved);
    } catch {
      // Kept as it is: the next update check fetches the trust store and reports what fails.
    }
  }

  private async vouchedFor(id: string, bytes: ArrayBuffer, signatures: SignatureFile): Promise<boolean> {
    try {
      this.trust.authorize(await this.trust.signers(new Uint8Array(bytes), signatures), [id]);
      return true;
    } catch (error) {
      if (error instanceof SignatureError) return false;
      throw error;
    }
  }

  get store(): ModelStore {
    return this.options.store;
  }

  /** Called after any change (install, rollback, quarantine...), here or in another tab, and on each download's progress here. */
  subscribe(listener: (change: RegistryChange) => void): () => void {
    return this.listeners.subscribe(listener);
  }

  /** Tells this window's subscribers and the other windows; a notice goes to the users of all. */
  private changed({ trust = false, notices = [], dismissed = [] }: StoreNews = {}): void {
    this.updateNotices({ notices, dismissed }, true);
    this.listeners.notify('store');
    this.otherTabs?.postMessage({ trust, notices, dismissed } satisfies StoreMessage);
  }

  /** The news not yet dismissed, oldest first. */
  get notices(): readonly RegistryNotice[] {
    return this.pending;
  }

  /** `keep`: this window made the change, so it keeps the result (the others follow it in memory). */
  private updateNotices({ notices, dismissed }: Pick<StoreMessage, 'notices' | 'dismissed'>, keep: boolean): void {
    if (notices.length === 0 && dismissed.length === 0) return;
    // The same news told again (the same version quarantined twice) is shown once, as the newest.
    const gone = [...dismissed, ...notices];
    this.pending = [...this.pending.filter((n) => !gone.some((d) => sameNotice(n, d))), ...notices].slice(-KEPT_NOTICES);
    if (keep) this.keptNotices.set(this.pending);
  }

  activeTransfers(): Transfer[] {
    return [...this.transfers.values()];
  }

  /** Dismissed here and in the other windows, which were told the same news. */
  dismissNotice(notice: RegistryNotice): void {
    this.changed({ dismissed: [notice] });
  }

  // --- discovery ----------------------------------------------------------------------------

  /**
   * A publisher's signed catalog: signature by a key whose scope covers every listed id, not
   * expired, and acceptable after the last catalog this device accepted from that URL (same
   * publisher, not older: catalogStampAfter). Its withdrawals are applied to the versions
   * installed here and kept, and the releases it offers are those neither it nor any catalog
   * accepted before withdrew.
   */
  async catalog(url = this.options.catalogUrl): Promise<Release[]> {
    if (!url) return [];
    const href = this.options.policy.check(url);
    const [bytes, sigBytes] = await Promise.all([
      fetchSigned(this.net, href, 'the model catalog', DOCUMENT_LIMITS.catalog),
      fetchSigned(this.net, catalogSignatureUrl(href), 'the model catalog signature', DOCUMENT_LIMITS.signature, undefined, 'The model catalog is not signed.'),
    ]);
    const { catalog, keyIds } = await verifyCatalog(this.trust, bytes, parseSignatureFile(sigBytes));
    const listed = catalog.releases.map((r) => r.id);
    const trustedFor = (keyId: string, ids: readonly string[]) => this.trust.has(keyId) && ids.every((id) => this.trust.allows(keyId, id));
    await this.options.store.acceptCatalog({ url: href, version: catalog.version, sha256: await sha256Hex(bytes), keyIds }, listed, trustedFor);
    const withdrawn = catalog.releases.flatMap((r) => (r.withdrawn === undefined ? [] : [{ key: versionKey(r), sequence: r.sequence, reason: r.withdrawn }]));
    if (withdrawn.length > 0) await this.applyWithdrawals(withdrawn, { url: href, version: catalog.version });
    // Withdrawn here or by any catalog accepted before (a mirror may still list what its publisher took back).
    const releases = releasesOf(catalog, href);
    const withdrawnBefore = await this.options.store.withdrawnOf(releases.map((r) => ({ key: versionKey(r), sequence: r.sequence })));
    return releases.filter((r, i) => r.withdrawn === undefined && !withdrawnBefore[i]);
  }

  /** Takes withdrawn versions out of service here (ModelStore.withdraw); the user is told of each one that was active. */
  private async applyWithdrawals(withdrawals: readonly Withdrawal[], from: CatalogSource): Promise<void> {
    const changed = await this.options.store.withdraw(withdrawals, from);
    if (changed.length === 0) return;
    const reasons = new Map(withdrawals.map((w) => [w.key, w.reason]));
    const notices = changed.filter((r) => r.wasActive).map((r): RegistryNotice => ({
      kind: r.kept ? 'withdrawn-kept' : 'withdrawn', id: r.id, version: r.version, reason: reasons.get(versionKey(r)) ?? '', ...(r.fallback ? { fallbackVersion: r.fallback } : {}),
    }));
    this.changed({ notices });
  }

  async overview(): Promise<ModelOverview[]> {
    const { store } = this.options;
    const [versions, pointers] = await Promise.all([store.versions(), store.pointers()]);
    const ids = [...new Set([...pointers.map((p) => p.id), ...versions.map((v) => v.id)])].sort();
    return Promise.all(ids.map(async (id) => {
      const pointer = pointers.find((p) => p.id === id);
      const mine = versions.filter((v) => v.id === id).sort((a, b) => b.sequence - a.sequence);
      const titleFrom = pointer?.active ?? mine[0]?.key;
      const record = titleFrom ? await store.manifest(titleFrom) : undefined;
      const manifest = record ? parseManifest(new Uint8Array(record.bytes)) : undefined;
      const highestSequence = await store.highestSequence(id);
      return {
        id, title: manifest?.title ?? id, versions: mine, ...(pointer ? { pointer } : {}), ...(highestSequence !== undefined ? { highestSequence } : {}),
        ...(manifest?.expiresAt ? { expiresAt: manifest.expiresAt } : {}),
      };
    }));
  }

  async storageEstimate(): Promise<StorageState> {
    const { storage, store } = this.options;
    const [estimate, persisted, modelBytes] = await Promise.all([
      storage?.estimate().catch(() => ({})) ?? {},
      storage?.persisted?.().catch(() => undefined),
      store.chunkBytes(),
    ]);
    return { ...estimate, ...(persisted !== undefined ? { persisted } : {}), modelBytes };
  }

  /**
   * Asks the browser to keep the models when space runs low; resolves to whether it now does.
   * The first install asks by itself; the Models screen asks again when the user says so (a
   * browser may decide from the user's gesture, or prompt). A refusal is an answer, not an error.
   */
  async requestPersistentStorage(): Promise<boolean> {
    return (await this.options.storage?.persist?.().catch(() => false)) ?? false;
  }

  // --- installing (installer.ts) ------------------------------------------------------------

  /**
   * Downloads, verifies and activates a release listed in a catalog (or any allowed URL pair);
   * or puts it in shadow next to the active version (`mode`, else what the signed manifest asks).
   */
  async install(release: Pick<Release, 'manifestUrl' | 'signatureUrl'> & Partial<Release>, signal?: AbortSignal, mode?: InstallMode): Promise<VersionRecord> {
    return (await this.installer()).install(release, signal, mode);
  }

  /** Installs a sideloaded `.lantern` bundle: same checks as a download, no network. */
  async installBundle(source: BundleSource, signal?: AbortSignal): Promise<VersionRecord> {
    return (await this.installer()).installBundle(source, signal);
  }

  /**
   * Continues an interrupted download (e.g. after the tab was closed) from its last verified
   * chunk, to the end its install asked for (in shadow or activated: the mode stored with it).
   */
  async resume(key: string, signal?: AbortSignal): Promise<VersionRecord> {
    return (await this.installer()).resume(key, signal);
  }

  /**
   * The install paths' code loads with the first install, not with the first screen (the initial
   * JavaScript budget). A load that failed (a first visit cut before the service worker kept the
   * code) is tried again by the next install, not remembered.
   */
  private installer(): Promise<Installer> {
    this.installerLoad ??= importForAction(() => import('./installer.ts')).then(({ Installer }) => new Installer(this, {
      options: this.options,
      net: this.net,
      transfers: this.transfers,
      trust: () => this.trust,
      changed: (news) => this.changed(news),
      progressed: () => this.listeners.notify('progress'),
    }), (error: unknown) => {
      this.installerLoad = undefined;
      throw error;
    });
    return this.installerLoad;
  }

  /**
   * Loads now the code that installs, reads and shares bundles (split off the first screen): a
   * device with no network installs from a bundle, so a screen offering that calls this when it
   * opens, while the code can still be fetched (a browser with no service worker keeps none).
   * A load that fails is tried again by the action that needs it.
   */
  async loadBundleCode(): Promise<void> {
    await Promise.all([this.installer(), import('./bundle.ts'), import('./share.ts')]).catch(() => undefined);
  }

  // --- managing -----------------------------------------------------------------------------

  async rollback(id: string, key: string): Promise<void> {
    await this.options.store.rollback(id, key);
    this.changed();
  }

  /**
   * Post-activation rollback after the version failed too often in real use: the previous
   * version becomes active and this one is marked rejected. Returns the version now answering.
   */
  async rollBackAutomatically(key: string, reason: string): Promise<string | undefined> {
    const active = await this.options.store.rollBackFrom(key, reason);
    const version = await this.options.store.version(key);
    if (!active || !version) return undefined;
    const fallbackVersion = (await this.options.store.version(active))?.version;
    this.changed({ notices: [{ kind: 'rolled-back', id: version.id, version: version.version, reason, ...(fallbackVersion ? { fallbackVersion } : {}) }] });
    return active;
  }

  /** A signed `.lantern` bundle of an installed version, for another device (share.ts). */
  async exportBundle(key: string): Promise<{ name: string; blob: Blob }> {
    return (await importForAction(() => import('./share.ts'))).exportBundle(this.options.store, key);
  }

  /** Makes a shadow candidate the active version (the old one becomes previous, kept for rollback). */
  async promote(key: string): Promise<void> {
    await this.options.store.activate(key);
    this.changed();
  }

  /** Ends a shadow evaluation: the candidate is marked rejected with `reason` (a fixed sentence with figures). */
  async rejectCandidate(key: string, reason: string): Promise<void> {
    await this.options.store.rejectShadow(key, reason);
    this.changed();
  }

  /**
   * Ends the shadow evaluation of `key` without a verdict if it is still in shadow next to
   * `active` (release/follow-store.ts: the active version changed to one with other labels). Returns
   * whether it ended.
   */
  async endShadow(key: string, active: string): Promise<boolean> {
    const ended = await this.options.store.endShadow(key, active);
    if (ended) this.changed();
    return ended;
  }

  /** The manifest of the model's candidate in shadow, if it has one (no file is read). */
  async candidateManifest(id: string): Promise<Manifest | undefined> {
    const key = (await this.options.store.pointer(id))?.shadow;
    const record = key ? await this.options.store.manifest(key) : undefined;
    return record ? parseManifest(new Uint8Array(record.bytes)) : undefined;
  }

  /** The model's shadow candidate, verified like an active version before it may run; a mismatch quarantines it. */
  async readCandidate(id: string): Promise<{ manifest: Manifest; read: VerifiedRead & { ok: true } } | undefined> {
    const manifest = await this.candidateManifest(id);
    if (!manifest) return undefined;
    const key = versionKey(manifest);
    const read = await readVerified(this.options.store, manifest);
    if (read.ok) return { manifest, read };
    await this.options.store.quarantine(key, DAMAGED_REASON, read.badChunks);
    this.changed({ notices: [{ kind: 'quarantined', id, version: manifest.version }] });
    return undefined;
  }

  async removeVersion(key: string): Promise<void> {
    await this.options.store.removeVersion(key);
    this.changed();
  }

  async removeModel(id: string): Promise<void> {
    await this.options.store.removeModel(id);
    this.changed();
  }

  // --- reading for inference ----------------------------------------------------------------

  /** The active version's manifest, or undefined when the model is not installed. */
  async activeManifest(id: string): Promise<{ manifest: Manifest; sourceUrl?: string } | undefined> {
    const pointer = await this.options.store.pointer(id);
    const record = pointer && await this.options.store.manifest(pointer.active);
    if (!record) return undefined;
    return { manifest: parseManifest(new Uint8Array(record.bytes)), ...(record.sourceUrl ? { sourceUrl: record.sourceUrl } : {}) };
  }

  /**
   * Reads the active version's files, re-verified. On a mismatch the version is quarantined,
   * the previous good one becomes active, the user gets a notice, and an IntegrityError says
   * which version now answers (`details.fallback`), so the caller can simply ask again.
   */
  async readActive(id: string): Promise<{ manifest: Manifest; read: VerifiedRead & { ok: true } }> {
    const active = await this.activeManifest(id);
    if (!active) throw new ModelLoadError(`There is no installed model called "${id}".`, { id });
    const read = await readVerified(this.options.store, active.manifest);
    if (read.ok) return { manifest: active.manifest, read };
    const { manifest } = active;
    const fallbackKey = await this.options.store.quarantine(versionKey(manifest), DAMAGED_REASON, read.badChunks);
    const fallbackVersion = fallbackKey ? (await this.options.store.version(fallbackKey))?.version : undefined;
    this.changed({ notices: [{ kind: 'quarantined', id, version: manifest.version, ...(fallbackVersion ? { fallbackVersion } : {}) }] });
    throw quarantinedError(manifest, fallbackVersion);
  }
}

/** The active version failed re-verification; `details.fallback` names the version now answering. */
function quarantinedError(manifest: Manifest, fallbackVersion: string | undefined): IntegrityError {
  return new IntegrityError(fallbackVersion
    ? `Version ${manifest.version} of ${manifest.id} failed its integrity check and was quarantined; version ${fallbackVersion} is answering instead.`
    : `Version ${manifest.version} of ${manifest.id} failed its integrity check and was quarantined; reinstall the model.`,
  { id: manifest.id, version: manifest.version, fallback: fallbackVersion ?? null });
}
