import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { type LanternError, type ModelDescriptor, NetworkError } from '../runtime/index.ts';
import { isUpdate, updatesFor } from '../runtime/release/updates.ts';
import { type OpenedRegistry, latestReleases, type Release, releasesFrom, SavedCatalogs, type ModelOverview, type ModelRegistry, type RegistryNotice, type StorageState, type Transfer, type VersionRecord } from '../runtime/store/index.ts';
import { AddModel } from './AddModel.tsx';
import { ConfirmDownload, type DownloadRequest } from './ConfirmDownload.tsx';
import { DataSettings } from './DataSettings.tsx';
import { formatBytes, formatPercent } from './format.ts';
import { enModels } from './i18n/en-models.ts';
import { addEnglish, t } from './i18n/index.ts';
import { catalogErrorText, modelsActionText, storeReasonText } from './i18n/models-text.ts';
import { ModelCard, type ModelActions } from './ModelCard.tsx';
import { ModelPolicies } from './ModelPolicies.tsx';
import { ErrorCard, errorCode, ErrorMessage } from './ResultCard.tsx';
import { ShadowPanel } from './ShadowPanel.tsx';
import { StorageStatus } from './StorageStatus.tsx';
import { shareFile } from './share-file.ts';
import type { Services } from './services.ts';
import { useOnline } from './useOnline.ts';
import { TransferBar } from './TransferBar.tsx';

addEnglish(enModels);

interface Snapshot {
  models: ModelOverview[];
  /** Active versions, as the runtime sees them (labels for fallback choices). */
  active: ModelDescriptor[];
  transfers: Transfer[];
  notices: readonly RegistryNotice[];
  storage: StorageState;
}

async function snapshot(registry: ModelRegistry, services: Services): Promise<Snapshot> {
  const [models, storage, active] = await Promise.all([registry.overview(), registry.storageEstimate(), services.lantern.models()]);
  return { models, active, storage, transfers: registry.activeTransfers(), notices: registry.notices };
}

function noticeText(n: RegistryNotice): string {
  const vars = { id: n.id, version: n.version, fallback: n.fallbackVersion ?? '', reason: storeReasonText(n.reason ?? '') };
  if (n.kind === 'rejected') return t('models.notice.rejected', vars);
  if (n.kind === 'not-shadowed') return t('models.notice.notShadowed', vars);
  if (n.kind === 'rolled-back') return t('models.notice.rolledBack', vars);
  if (n.kind === 'revoked') return t(n.fallbackVersion ? 'models.notice.revoked' : 'models.notice.revokedNoFallback', vars);
  if (n.kind === 'withdrawn') return t('models.notice.withdrawn', vars);
  if (n.kind === 'withdrawn-kept') return t('models.notice.withdrawnKept', vars);
  return t(n.fallbackVersion ? 'models.notice.quarantined' : 'models.notice.quarantinedNoFallback', vars);
}

/**
 * What the server sent and this device refused (a broken or stale trust store or registry
 * configuration; a built-in release that failed its checks), from the start's checks and from
 * each later trust refresh, once each. Offline is not a refusal: the offline note says it.
 */
function useRefusals(): [LanternError[], (errors: readonly LanternError[]) => void, (refusal: LanternError) => void] {
  const [refusals, setRefusals] = useState<LanternError[]>([]);
  const add = useCallback((errors: readonly LanternError[]) => setRefusals((shown) => [
    ...shown,
    ...errors.filter((e) => !(e instanceof NetworkError) && !shown.some((s) => s.code === e.code && s.message === e.message)),
  ]), []);
  const dismiss = (refusal: LanternError) => setRefusals((shown) => shown.filter((s) => s !== refusal));
  return [refusals, add, dismiss];
}

/** Installed models and versions, updates, sideloading, storage; every action goes through the registry. */
export function ModelsView({ services }: { services: Services }) {
  const [opened, setOpened] = useState<OpenedRegistry | null>(null);
  const [state, setState] = useState<Snapshot | null>(null);
  const [releases, setReleases] = useState<Release[]>([]);
  /** Updates listed for this device's models that its rollout bucket does not reach yet. */
  const [notYet, setNotYet] = useState<Release[]>([]);
  const [catalogError, setCatalogError] = useState<Error | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);
  const [confirm, setConfirm] = useState<DownloadRequest | null>(null);
  /** A sideloaded bundle held a version already on this device: the screen would not change, so it says so. */
  const [alreadyInstalled, setAlreadyInstalled] = useState<VersionRecord | null>(null);
  /** The title of the model just removed: said, and focused, since its card (and the focused button) is gone. */
  const [removed, setRemoved] = useState<string | null>(null);
  const removedNote = useRef<HTMLParagraphElement>(null);
  useEffect(() => removedNote.current?.focus(), [removed]);
  const [autoSkipped, setAutoSkipped] = useState(false);
  /** A catalog check is under way: on a slow link it takes seconds, and the button says so. */
  const [checking, setChecking] = useState(false);
  const [refusals, addRefusals, dismissRefusal] = useRefusals();
  const controllers = useRef(new Map<string, AbortController>());
  const savedCatalogs = useMemo(() => new SavedCatalogs(globalThis.localStorage), []);
  const online = useOnline();

  useEffect(() => {
    services.models.then((opened) => {
      setOpened(opened);
      void opened.checked.then(addRefusals);
      // Loading a bundle is how a device with no network installs: its code must be here whenever
      // the button that loads one is, also in a browser with no service worker.
      void opened.registry.loadBundleCode();
    }, setError);
  }, [services, addRefusals]);

  const registry = opened?.registry;
  const checkUpdates = useCallback(() => {
    if (!registry || !opened) return;
    setCatalogError(null);
    setAutoSkipped(false);
    setChecking(true);
    // A revocation published since start applies before any new release is offered.
    // A refused trust store leaves the one in use standing (refreshTrust): shown, then go on.
    opened.refreshTrust().catch((refusal: LanternError) => addRefusals([refusal]))
      .then(() => releasesFrom((url) => registry.catalog(url), savedCatalogs.list()))
      .then(async (found) => {
        setReleases(found);
        setNotYet((await updatesFor(registry, found, services.release.bucketFor)).notYet);
      })
      .catch(setCatalogError)
      .finally(() => setChecking(false));
  }, [opened, registry, savedCatalogs, services, addRefusals]);

  useEffect(() => {
    if (!registry) return undefined;
    let pending = false;
    const refresh = () => {
      // Progress fires often: coalesce the store reads.
      if (pending) return;
      pending = true;
      setTimeout(() => {
        pending = false;
        snapshot(registry, services).then(setState, setError);
      }, 50);
    };
    refresh();
    // Opening the screen checks for updates only when the data policy allows background fetches.
    const automatic = services.data.automaticAllowed;
    setAutoSkipped(!automatic);
    if (automatic) checkUpdates();
    return registry.subscribe(refresh);
  }, [registry, checkUpdates, services]);

  if (!registry || !state) return error ? <ErrorCard error={error} /> : <p aria-busy="true">{t('models.loading')}</p>;

  const run = async (action: () => Promise<unknown>) => {
    // Each action's outcome replaces the previous one's.
    setError(null);
    setAlreadyInstalled(null);
    setRemoved(null);
    setBusy(true);
    try {
      await action();
    } catch (e) {
      setError(e as Error);
    } finally {
      setBusy(false);
    }
  };
  const withSignal = (id: string, action: (signal: AbortSignal) => Promise<unknown>) => run(async () => {
    const controller = new AbortController();
    controllers.current.set(id, controller);
    try {
      await action(controller.signal);
    } finally {
      controllers.current.delete(id);
    }
  });

  /** Every download states its size; on a metered connection it waits for the user's yes. */
  const download = (name: string, size: number, start: () => void) => {
    if (services.data.confirmDownloads) setConfirm({ name, size, start });
    else start();
  };
  const versionSize = (key: string) => state.models.flatMap((m) => m.versions).find((v) => v.key === key)?.sizeBytes ?? 0;

  const actions: ModelActions = {
    install: (release) => download(`${release.title ?? release.id} ${release.version}`, release.size, () => void withSignal(release.id, (signal) => registry.install(release, signal))),
    installShadow: (release) => download(`${release.title ?? release.id} ${release.version}`, release.size, () => void withSignal(release.id, (signal) => registry.install(release, signal, 'shadow'))),
    resume: (key) => download(key, versionSize(key), () => void withSignal(key.split('@')[0]!, (signal) => registry.resume(key, signal))),
    rollback: (id, key) => void run(() => registry.rollback(id, key)),
    removeVersion: (key) => void run(() => registry.removeVersion(key)),
    removeModel: (id) => void run(async () => {
      await registry.removeModel(id);
      setRemoved(state.models.find((m) => m.id === id)?.title ?? id);
    }),
    cancel: (id) => controllers.current.get(id)?.abort(),
    share: (key) => void run(async () => {
      const { name, blob } = await registry.exportBundle(key);
      await shareFile(new File([blob], name, { type: 'application/octet-stream' }));
    }),
  };

  const sideload = (file: File) => {
    // Read before installing: installBundle succeeds quietly on a version that is already here.
    const readyBefore = new Set(state.models.flatMap((m) => m.versions).filter((v) => v.status === 'ready').map((v) => v.key));
    void run(async () => {
      const record = await registry.installBundle(file);
      if (readyBefore.has(record.key)) setAlreadyInstalled(record);
    });
  };

  const latest = latestReleases(releases);
  const installed = new Set(state.models.filter((m) => m.pointer).map((m) => m.id));
  const available = [...latest.values()].filter((r) => !installed.has(r.id));
  const orphanTransfers = state.transfers.filter((tr) => !installed.has(tr.id));

  return (
    <div class="models">
      {!online && <p class="card notice" role="status" data-testid="offline-note">{t('models.offline')}</p>}
      {state.notices.map((n) => (
        <div class="card notice" role="alert" data-testid="registry-notice" data-kind={n.kind} key={`${n.kind}:${n.id}@${n.version}`}>
          <p>{noticeText(n)}</p>
          <button type="button" onClick={() => registry.dismissNotice(n)}>{t('models.dismiss')}</button>
        </div>
      ))}
      {/* A refusal the catalog error below already words (an expired built-in catalog) is said once, there. */}
      {refusals.filter((refusal) => refusal.message !== catalogError?.message).map((refusal) => (
        <div class="card notice" role="alert" data-testid="refused" data-code={refusal.code} key={`${refusal.code}:${refusal.message}`}>
          <ErrorMessage error={refusal} text={t('models.refused')} />
          <button type="button" onClick={() => dismissRefusal(refusal)}>{t('models.dismiss')}</button>
        </div>
      ))}
      {error && (
        <section class="card error" role="alert" data-testid="models-error" data-code={errorCode(error)}>
          <ErrorMessage error={error} text={modelsActionText(error)} />
        </section>
      )}
      <StorageStatus storage={state.storage} keep={() => registry.requestPersistentStorage()} />
      <p class="actions">
        <button type="button" data-testid="check-updates" disabled={checking} aria-busy={checking} onClick={checkUpdates}>{t(checking ? 'models.checking' : 'models.checkUpdates')}</button>
        <label class="button">
          {t('models.loadBundle')}
          <input
            type="file"
            accept=".lantern,application/octet-stream"
            data-testid="bundle-file"
            disabled={busy}
            onChange={(e) => {
              const file = e.currentTarget.files?.[0];
              e.currentTarget.value = '';
              if (file) sideload(file);
            }}
          />
        </label>
      </p>
      {alreadyInstalled && (
        <p class="card notice" role="status" data-testid="bundle-already-installed">
          {t('models.bundle.alreadyInstalled', { title: state.models.find((m) => m.id === alreadyInstalled.id)?.title ?? alreadyInstalled.id, version: alreadyInstalled.version })}
        </p>
      )}
      {removed && <p class="card notice" role="status" tabIndex={-1} ref={removedNote} data-testid="model-removed">{t('models.removed', { title: removed })}</p>}
      {autoSkipped && <p class="hint" data-testid="auto-check-skipped">{t('settings.autoSkipped')}</p>}
      {catalogError && (
        <div class="muted" data-testid="catalog-error" data-code={errorCode(catalogError)}>
          <ErrorMessage text={t('models.catalogUnavailable', { reason: catalogErrorText(catalogError) })} error={catalogError} />
        </div>
      )}

      {state.models.map((model) => {
        const release = latest.get(model.id);
        const update = release && isUpdate(release, model) ? release : undefined;
        return (
          <ModelCard key={model.id} model={model} update={update} transfer={state.transfers.find((tr) => tr.id === model.id)} busy={busy} actions={actions}>
            {update && notYet.some((r) => r.id === model.id && r.version === update.version) && (
              <p class="hint" data-testid={`rollout-${model.id}`}>{t('models.rollout.notYet', { version: update.version, percent: formatPercent(update.rollout ?? 1, 0) })}</p>
            )}
            <ShadowPanel model={model} described={state.active.find((m) => m.id === model.id)} release={services.release} busy={busy} run={(action) => void run(action)} />
            {model.pointer && <ModelPolicies modelId={model.id} models={state.active} settings={services.release.settings} />}
          </ModelCard>
        );
      })}

      {orphanTransfers.map((tr) => <TransferBar key={tr.id} transfer={tr} onCancel={() => actions.cancel(tr.id)} />)}
      {available.length > 0 && (
        <section class="card">
          <h2>{t('models.available')}</h2>
          <ul class="available">
            {available.map((r) => (
              <li key={r.id}>
                {r.title ?? r.id} {r.version} ({formatBytes(r.size)}){' '}
                <button type="button" disabled={busy} data-testid={`install-${r.id}`} onClick={() => actions.install(r)}>{t('models.install')}</button>
              </li>
            ))}
          </ul>
        </section>
      )}
      <AddModel registry={registry} saved={savedCatalogs} onAdded={checkUpdates} />
      <DataSettings policy={services.data} />
      {confirm && <ConfirmDownload request={confirm} onClose={() => setConfirm(null)} />}
    </div>
  );
}
