import { BusyError, IntegrityError, LanternError, ModelLoadError, QuotaError, ValidationError } from '../errors.ts';
import type { BundleSource } from './bundle.ts';
import type { Release } from './catalog.ts';
import { assertWholeFiles, writeVerifiedChunks, type ReadChunk, type TransferProgress } from './chunk-writer.ts';
import { sha256Hex } from './bytes.ts';
import { DOCUMENT_LIMITS, fetchSigned, type NetContext } from './net.ts';
import { totalSize, versionKey, type Manifest } from './manifest.ts';
import { assertEntryMatches, verifyManifest } from './signed-documents.ts';
import type { InstallMode, VersionRecord } from './model-store.ts';
import { REASONS } from './reason-catalog.ts';
import { fillReason } from './reasons.ts';
import { gateHasNoVerdict } from './gate-verdict.ts';
import type { GoldenOutcome, ModelRegistry, RegistryOptions, StoreNews, Transfer } from './registry.ts';
import { parseSignatureFile, type SignatureFile, type TrustStore } from './trust.ts';
import { readVerified, type VerifiedRead } from './verified-read.ts';
import { comparableInShadow } from '../release/shadow.ts';
import { importForAction } from '../field/lazy-chunk.ts';

/**
 * Installing a release: verified first (signature against the trust store, schema, the key's
 * scope over the model id, expiry), its chunks moved into the store from the network or a
 * sideloaded bundle, read back whole, gated, then placed (activated, or in shadow beside the
 * active version). Loaded with the first install, not with the first screen (the initial
 * JavaScript budget): a start whose models are installed installs nothing.
 */

/** What an install needs of the registry it runs for, beyond its public methods. */
export interface InstallHost {
  readonly options: RegistryOptions;
  readonly net: NetContext;
  /** The models being installed in this window, with their progress (one install per model at a time). */
  readonly transfers: Map<string, Transfer>;
  /** The trust store in use now: another window may have changed it since the install began. */
  trust(): TrustStore;
  /** Tells this window's subscribers and the other windows of a store change. */
  changed(news?: StoreNews): void;
  /** Tells this window's progress bars that a transfer moved. */
  progressed(): void;
}

/** Where an install goes once verified (Installer.placement). */
type Placement = 'activate' | 'shadow' | 'not-shadowed';

/** Moves a release's chunks into the store (from the network or a bundle), reporting progress. */
type MoveChunks = (onProgress: (p: TransferProgress) => void, signal?: AbortSignal) => Promise<unknown>;

/** Why a release cannot be tried in shadow beside `active`: their answers could not be compared. */
const incomparable = (manifest: Manifest, active: Manifest): ValidationError =>
  new ValidationError(`${manifest.id} ${manifest.version} cannot be tried in shadow: its labels differ from ${active.version}'s.`, { reason: 'shadow-labels', id: manifest.id, version: manifest.version, active: active.version });

/** Free space we insist on beyond the download itself, for IndexedDB's own overhead. */
const QUOTA_MARGIN = 1.1;

export class Installer {
  private persistRequested = false;

  constructor(private readonly registry: ModelRegistry, private readonly host: InstallHost) {}

  /**
   * Downloads, verifies and activates a release listed in a catalog (or any allowed URL pair);
   * or puts it in shadow next to the active version (`mode`, else what the signed manifest asks).
   */
  async install(release: Pick<Release, 'manifestUrl' | 'signatureUrl'> & Partial<Release>, signal?: AbortSignal, mode?: InstallMode): Promise<VersionRecord> {
    const [bytes, sigBytes] = await Promise.all([
      fetchSigned(this.host.net, release.manifestUrl, 'the release manifest', DOCUMENT_LIMITS.manifest, signal),
      fetchSigned(this.host.net, release.signatureUrl, 'the release signature', DOCUMENT_LIMITS.signature, signal, 'The release is not signed.'),
    ]);
    const signatures = parseSignatureFile(sigBytes);
    const trust = this.host.trust();
    const { manifest, keyIds } = await verifyManifest(trust, bytes, signatures);
    // A replayed old manifest behind a current catalog entry is a downgrade first of all.
    await this.host.options.store.assertNotDowngrade({ ...manifest, manifest: await sha256Hex(bytes) });
    assertEntryMatches(release, manifest);
    return this.installVerified(manifest, bytes, signatures, { keyIds, sourceUrl: release.manifestUrl, mode }, trust, this.download(manifest, release.manifestUrl), signal);
  }

  /** Installs a sideloaded `.lantern` bundle: same checks as a download, no network. */
  async installBundle(source: BundleSource, signal?: AbortSignal): Promise<VersionRecord> {
    // Loaded when a bundle is opened or shared, not with the first screen (the initial JavaScript budget).
    const bundle = await (await importForAction(() => import('./bundle.ts'))).openBundle(source);
    const trust = this.host.trust();
    const { manifest, keyIds } = await verifyManifest(trust, bundle.manifestBytes, bundle.signatures);
    await assertWholeFiles(manifest, bundle.readChunk, signal);
    return this.installVerified(manifest, bundle.manifestBytes, bundle.signatures, { keyIds }, trust, this.copyChunks(manifest, bundle.readChunk), signal);
  }

  /**
   * Continues an interrupted download (e.g. after the tab was closed) from its last verified
   * chunk, to the end its install asked for (in shadow or activated: the mode stored with it).
   */
  async resume(key: string, signal?: AbortSignal): Promise<VersionRecord> {
    const record = await this.host.options.store.manifest(key);
    if (!record?.sourceUrl) throw new ModelLoadError('That download cannot be resumed; install it again.', { key });
    const bytes = new Uint8Array(record.bytes);
    const trust = this.host.trust();
    const { manifest, keyIds } = await verifyManifest(trust, bytes, record.signatures);
    return this.installVerified(manifest, bytes, record.signatures, { keyIds, sourceUrl: record.sourceUrl, mode: record.mode }, trust, this.download(manifest, record.sourceUrl), signal);
  }

  private download(manifest: Manifest, manifestUrl: string): MoveChunks {
    const { retries, backoffMs } = this.host.options;
    return async (onProgress, signal) => {
      // The downloader's code loads when a download starts, not with the first screen (the
      // initial JavaScript budget, e2e/serving.spec.ts): it is useless without the network,
      // which then serves it too (from the precache once the service worker is installed).
      const { downloadRelease } = await importForAction(() => import('./downloader.ts'));
      return downloadRelease(manifest, manifestUrl, this.host.options.store, { net: this.host.net, signal, retries, backoffMs, onProgress });
    };
  }

  private copyChunks(manifest: Manifest, read: ReadChunk): MoveChunks {
    return (onProgress, signal) => writeVerifiedChunks(manifest, this.host.options.store, read, { signal, onProgress });
  }

  private async installVerified(
    manifest: Manifest,
    bytes: Uint8Array,
    signatures: SignatureFile,
    /** `mode` is kept with the version being downloaded, so that a resume places it as asked. */
    origin: { keyIds: string[]; sourceUrl?: string; mode?: InstallMode },
    /** The trust store the manifest was verified with. */
    verifiedWith: TrustStore,
    moveChunks: MoveChunks,
    signal?: AbortSignal,
  ): Promise<VersionRecord> {
    const key = versionKey(manifest);
    if (this.host.transfers.has(manifest.id)) throw new BusyError(`${manifest.id} is already being installed.`, { id: manifest.id });
    const { store } = this.host.options;
    // Claimed before the first await: a second install of this model (an automatic update and a
    // tap on Update at once) is busy, not a second download of the same bytes.
    const entry: Transfer = { id: manifest.id, version: manifest.version, progress: { bytes: 0, total: totalSize(manifest), percent: 0, rate: 0 } };
    this.host.transfers.set(manifest.id, entry);
    let placement: Placement;
    try {
      // Decided before any byte is fetched: a refused shadow install costs no data.
      placement = await this.placement(manifest, origin.mode);
      const record = await store.beginInstall(manifest, bytes, signatures, origin);
      // Installing a version that is already here is how a user repairs one whose chunks were
      // evicted or damaged since it was last read: those are fetched again (it passed its gate before).
      const repair = record.status === 'ready' && await this.damagedChunks(manifest);
      if (record.status !== 'ready' || repair) {
        if (repair) await store.dropDamagedChunks(repair);
        await this.ensureSpace(manifest);
        this.host.changed();
        const moving = placement === 'shadow' && origin.mode === 'shadow' ? this.untilIncomparable(manifest, signal) : { signal, dispose: () => undefined };
        try {
          await moveChunks((progress) => {
            entry.progress = progress;
            // Only this window holds the transfer, and nothing but a progress bar has news in it:
            // a tick per chunk is not a store change (no re-read by the runtime or the release
            // controls, nothing told to the other windows).
            this.host.progressed();
          }, moving.signal);
        } catch (error) {
          throw moving.signal?.reason instanceof ValidationError ? moving.signal.reason : error;
        } finally {
          moving.dispose();
        }
        const check = await readVerified(store, manifest);
        if (!check.ok) throw await this.refuseInconsistent(manifest, check);
        await this.refuseOtherModel(manifest, check);
        // Until the gate passes the version stays "downloading": a reload here leaves the old one active.
        if (!repair) await this.gate(manifest, check, signal);
      }
      // The trust store may have changed while the bytes were read or moved (an update check, or
      // another window's): a release it no longer vouches for is not activated. Checked after
      // beginInstall, so a change after this point finds the version recorded (applyTrustVerdicts).
      if (this.host.trust() !== verifiedWith) {
        await verifyManifest(this.host.trust(), bytes, signatures).catch(async (error: unknown) => {
          await store.applyTrustVerdicts(new Map([[key, false]]));
          throw error;
        });
      }
    } finally {
      this.host.transfers.delete(manifest.id);
      this.host.changed();
    }
    // Decided again: the active version may have changed meanwhile (rolled back, revoked: other
    // labels) or gone (removed, quarantined: nothing to compare with).
    if (placement !== 'activate') placement = await this.placement(manifest, origin.mode);
    if (placement === 'shadow') await store.enterShadow(key);
    else await store.activate(key);
    this.host.changed(placement === 'not-shadowed' ? { notices: [{ kind: 'not-shadowed', id: manifest.id, version: manifest.version }] } : {});
    return (await store.version(key))!;
  }

  /**
   * Where an install goes: in shadow when asked (`mode`, else the signed manifest) and an active
   * version speaks the same labels (comparableInShadow); a first install is simply activated.
   * With other labels, a caller that asked for shadow is refused (typed, before any download: the
   * user can still update normally); when only the manifest asked, the release is activated as
   * any update would be (its validation gate and the automatic rollback still guard it) and the
   * user is told it was not evaluated in shadow ('not-shadowed').
   */
  private async placement(manifest: Manifest, mode: InstallMode | undefined): Promise<Placement> {
    if ((mode ?? (manifest.shadow ? 'shadow' : 'activate')) !== 'shadow') return 'activate';
    const active = (await this.registry.activeManifest(manifest.id))?.manifest;
    if (!active) return 'activate';
    if (comparableInShadow(active.labels, manifest.labels)) return 'shadow';
    if (mode === 'shadow') throw incomparable(manifest, active);
    return 'not-shadowed';
  }

  /**
   * For a shadow install its caller asked for: `signal`, also aborted (the refusal as its reason)
   * once the active version stops speaking the candidate's labels (rolled back, revoked or
   * quarantined to one with others, here or in another window): the candidate could never be
   * compared, and the rest of its download would be bytes spent for nothing on what may be a
   * poor link. An install only the manifest put in shadow goes on: it is activated instead.
   */
  private untilIncomparable(manifest: Manifest, signal: AbortSignal | undefined): { signal: AbortSignal; dispose: () => void } {
    const stop = new AbortController();
    const check = async () => {
      const active = (await this.registry.activeManifest(manifest.id))?.manifest;
      if (active && !comparableInShadow(active.labels, manifest.labels)) stop.abort(incomparable(manifest, active));
    };
    // A failed read decides nothing: the placement is decided again once the bytes are here.
    const unsubscribe = this.registry.subscribe((change) => { if (change === 'store') void check().catch(() => undefined); });
    // The caller's cancel passed on by hand: AbortSignal.any is newer than the browsers Lantern runs in (Safari 17.4).
    const cancel = () => stop.abort(signal?.reason);
    if (signal?.aborted) cancel();
    signal?.addEventListener('abort', cancel, { once: true });
    return { signal: stop.signal, dispose: () => { unsubscribe(); signal?.removeEventListener('abort', cancel); } };
  }

  /** The chunks of an installed version that are missing or fail their hash, or false when it reads back whole. */
  private async damagedChunks(manifest: Manifest): Promise<string[] | false> {
    const read = await readVerified(this.host.options.store, manifest);
    return !read.ok && read.badChunks.length > 0 && read.badChunks;
  }

  /** Refuses (marks rejected, like a failed gate) a release whose files are another model than its manifest says (configMismatch). */
  private async refuseOtherModel(manifest: Manifest, check: VerifiedRead & { ok: true }): Promise<void> {
    // Loaded when a release is installed, not with the first screen: the config schemas it parses
    // with would otherwise weigh on every start (the initial JavaScript budget, e2e/serving.spec.ts).
    const { configMismatch } = await importForAction(() => import('./config-match.ts'));
    const reason = configMismatch(manifest, check);
    if (!reason) return;
    const key = versionKey(manifest);
    await this.host.options.store.reject(key, reason);
    throw new ValidationError(`Release ${manifest.version} of ${manifest.id} was not activated: ${reason}.`, { key });
  }

  /**
   * A downloaded release that does not read back whole. Chunks failing their own hash are storage
   * damage: the version is quarantined and those chunks deleted (useless to any version, fetched again on reinstall).
   * Files whose chunks are all valid but do not add up to the signed file hash are the
   * publisher's mistake: the release is rejected and nothing is deleted, since those chunks may
   * well belong to installed versions of this or another model.
   */
  private async refuseInconsistent(manifest: Manifest, check: VerifiedRead & { ok: false }): Promise<LanternError> {
    const key = versionKey(manifest);
    if (check.badChunks.length) {
      await this.host.options.store.quarantine(key, REASONS.damagedInDownload, check.badChunks);
      return new ValidationError(`Release ${manifest.version} of ${manifest.id} does not match its manifest; it was not activated.`, { key });
    }
    await this.host.options.store.reject(key, REASONS.inconsistent);
    return new IntegrityError(`Release ${manifest.version} of ${manifest.id} lists chunks that do not make up its files (${check.badFiles.join(', ')}); it was not activated and nothing installed was touched.`, { key });
  }

  /**
   * The validation gate: a release becomes active only if, when it has a golden set, every item
   * runs and the accuracy reaches its threshold, and, when it would replace an active version,
   * its model loads on this device. Otherwise it is marked rejected and the active version stays.
   * A first install without a golden set is not loaded first: it replaces nothing that works (its
   * load error is its first request's answer, where a fallback model may answer), and the
   * built-ins' first install does not wait for ONNX Runtime's download.
   */
  private async gate(manifest: Manifest, read: VerifiedRead & { ok: true }, signal: AbortSignal | undefined): Promise<void> {
    const { validate } = this.host.options;
    const { validation } = manifest;
    if (!validate || (!validation && !(await this.registry.activeManifest(manifest.id)))) return;
    const total = validation?.items.length ?? 0;
    let outcome: GoldenOutcome;
    try {
      outcome = await validate(manifest, read, signal);
    } catch (error) {
      if (gateHasNoVerdict(error)) throw error;
      outcome = { total, correct: 0, failed: total, ...(total === 0 ? { unloadable: true } : {}) };
    }
    const reason = gateFailure(outcome, validation?.threshold);
    if (!reason) return;
    const key = versionKey(manifest);
    await this.host.options.store.reject(key, reason);
    this.host.changed({ notices: [{ kind: 'rejected', id: manifest.id, version: manifest.version, reason }] });
    throw new ValidationError(`Release ${manifest.version} of ${manifest.id} was not activated: ${reason}.`, {
      key, correct: outcome.correct, failed: outcome.failed, total: outcome.total, threshold: validation?.threshold ?? null,
    });
  }

  /** Refuses before downloading anything when the device clearly lacks room. */
  private async ensureSpace(manifest: Manifest): Promise<void> {
    const { storage, store } = this.host.options;
    if (!storage) return;
    let missing = 0;
    for (const file of manifest.files) {
      for (let i = 0; i < file.chunks.length; i++) {
        if (!(await store.hasChunk(file.chunks[i]!))) missing += Math.min(file.chunkSize, file.size - i * file.chunkSize);
      }
    }
    if (!this.persistRequested) {
      this.persistRequested = true;
      await this.registry.requestPersistentStorage();
    }
    const { usage, quota } = await storage.estimate().catch(() => ({ usage: undefined, quota: undefined }));
    if (quota !== undefined && usage !== undefined && quota - usage < missing * QUOTA_MARGIN) {
      throw new QuotaError(`There is not enough storage space for ${manifest.id} ${manifest.version}; installed models were left untouched.`, {
        needed: missing, available: Math.max(0, quota - usage),
      });
    }
  }
}

/**
 * Why the gate's outcome fails the release (a fixed sentence with numbers), or undefined when it
 * passes. Without a golden set (no `threshold`), loading was the check.
 */
function gateFailure(outcome: GoldenOutcome, threshold: number | undefined): string | undefined {
  if (outcome.unloadable) return REASONS.unloadable;
  if (outcome.hung) return REASONS.goldenHung;
  if (outcome.failed > 0) return fillReason(REASONS.goldenFailed, { failed: outcome.failed, total: outcome.total });
  if (threshold === undefined) return undefined;
  const accuracy = outcome.total > 0 ? outcome.correct / outcome.total : 0;
  if (accuracy < threshold) return fillReason(REASONS.goldenAccuracy, { accuracy: pct(accuracy), threshold: pct(threshold) });
  return undefined;
}
const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;
