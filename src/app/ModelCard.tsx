import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Release, ModelOverview, Transfer, VersionRecord } from '../runtime/store/index.ts';
import { formatBytes } from './format.ts';
import { t } from './i18n/index.ts';
import { storeReasonText } from './i18n/models-text.ts';
import { TransferBar } from './TransferBar.tsx';
import { useOnline } from './useOnline.ts';

export interface ModelActions {
  install(release: Release): void;
  /** Install next to the active version, in shadow, instead of activating it. */
  installShadow(release: Release): void;
  resume(key: string): void;
  rollback(id: string, key: string): void;
  removeVersion(key: string): void;
  removeModel(id: string): void;
  cancel(id: string): void;
  /** Export a version as a signed bundle for another device (Web Share, else a download). */
  share(key: string): void;
}

function statusOf(model: ModelOverview, v: VersionRecord): string {
  if (model.pointer?.active === v.key) return v.withdrawn === undefined ? t('models.status.active') : t('models.status.activeWithdrawn', { reason: v.withdrawn });
  if (model.pointer?.shadow === v.key) return t('models.status.shadow');
  if (v.status === 'quarantined') return t('models.status.quarantined');
  if (v.status === 'rejected') return t('models.status.rejected');
  if (v.status === 'revoked') return t('models.status.revoked');
  if (v.status === 'withdrawn') return t('models.status.withdrawn', { reason: v.withdrawn ?? '' });
  if (v.status === 'downloading') return t('models.status.incomplete');
  if (model.pointer?.previous === v.key) return t('models.status.previous');
  return t('models.status.retained');
}

/**
 * Asks before a model is removed, saying what is lost: every version on this device, and,
 * offline, any way to get it back until the connection returns. A native modal <dialog>, as
 * ConfirmDownload: focus trapping, Escape to cancel, the dialog role. Focus starts on Cancel,
 * the answer that loses nothing.
 */
function ConfirmRemove({ model, onRemove, onClose }: { model: ModelOverview; onRemove: () => void; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const online = useOnline();
  useEffect(() => {
    const el = dialog.current;
    if (el && !el.open) el.showModal();
    return () => el?.close();
  }, []);
  const size = formatBytes(model.versions.reduce((total, v) => total + v.sizeBytes, 0));
  return (
    <dialog ref={dialog} class="confirm" data-testid="confirm-remove" aria-labelledby={`remove-heading-${model.id}`} onClose={onClose}>
      <h2 id={`remove-heading-${model.id}`}>{t('models.removeConfirm.heading', { title: model.title })}</h2>
      <p>{t('models.removeConfirm.body', { size })}</p>
      {!online && <p data-testid="confirm-remove-offline">{t('models.removeConfirm.offline')}</p>}
      <p class="actions">
        <button type="button" class="danger" data-testid="confirm-remove-yes" onClick={() => { onRemove(); onClose(); }}>{t('models.remove')}</button>
        <button type="button" class="link" data-testid="confirm-remove-no" autofocus onClick={onClose}>{t('models.cancel')}</button>
      </p>
    </dialog>
  );
}

/** One installed model: its versions, which is active, and what can be done with each. */
export function ModelCard({ model, update, transfer, busy, actions, children }: {
  model: ModelOverview;
  update?: Release;
  transfer?: Transfer;
  busy: boolean;
  actions: ModelActions;
  /** Release controls shown under the versions (fallback, cache, shadow...). */
  children?: ComponentChildren;
}) {
  const [confirmingRemove, setConfirmingRemove] = useState(false);
  // The release's manifest asks for shadow, and there is an active version to compare it with (a
  // first install is always activated): Update itself then installs it in shadow.
  const inShadow = Boolean(update?.shadow && model.pointer?.active);
  return (
    <section class="card model-card" data-testid={`model-${model.id}`} data-active={model.pointer?.active ?? ''}>
      <h2>{model.title} <small>({model.id})</small></h2>
      <table class="versions">
        <thead><tr><th>{t('models.version')}</th><th>{t('models.state')}</th><th class="size">{t('models.size')}</th><th /></tr></thead>
        <tbody>
          {model.versions.map((v) => {
            const active = model.pointer?.active === v.key;
            const shadow = model.pointer?.shadow === v.key;
            return (
              <tr key={v.key} data-testid={`version-${v.key}`} data-status={active ? 'active' : shadow ? 'shadow' : v.status}>
                <td>{v.version}</td>
                <td>{statusOf(model, v)}{v.reason ? ` — ${storeReasonText(v.reason)}` : ''}</td>
                <td class="size">{formatBytes(v.sizeBytes)}</td>
                <td class="actions">
                  {!active && !shadow && v.status === 'ready' && (
                    <button type="button" disabled={busy} data-testid={`rollback-${v.key}`} onClick={() => actions.rollback(model.id, v.key)}>
                      {(model.versions.find((x) => x.key === model.pointer?.active)?.sequence ?? 0) > v.sequence ? t('models.rollback') : t('models.activate')}
                    </button>
                  )}
                  {v.status === 'downloading' && !transfer && (
                    <button type="button" disabled={busy} data-testid={`resume-${v.key}`} onClick={() => actions.resume(v.key)}>{t('models.resume')}</button>
                  )}
                  {v.status === 'ready' && v.withdrawn === undefined && (
                    <button type="button" disabled={busy} data-testid={`share-${v.key}`} onClick={() => actions.share(v.key)}>{t('models.share')}</button>
                  )}
                  {!active && (
                    <button type="button" disabled={busy} data-testid={`delete-${v.key}`} onClick={() => actions.removeVersion(v.key)}>{t('models.delete')}</button>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {model.pointer && model.expiresAt && Date.parse(model.expiresAt) <= Date.now() && (
        <p class="hint" data-testid={`expired-${model.id}`}>{t('models.releaseExpired', { date: model.expiresAt.slice(0, 10) })}</p>
      )}
      {transfer && <TransferBar transfer={transfer} onCancel={() => actions.cancel(model.id)} />}
      {children}
      <p class="actions">
        {update && !transfer && (
          <button type="button" disabled={busy} data-testid={`update-${model.id}`} data-version={update.version} onClick={() => actions.install(update)}>
            {t(inShadow ? 'models.updateInShadow' : 'models.update', { version: update.version, size: formatBytes(update.size) })}
          </button>
        )}
        {update && !transfer && model.pointer && !inShadow && (
          <button type="button" disabled={busy} data-testid={`shadow-update-${model.id}`} onClick={() => actions.installShadow(update)}>
            {t('models.tryShadow', { version: update.version })}
          </button>
        )}
        <button type="button" disabled={busy || Boolean(transfer)} data-testid={`remove-${model.id}`} onClick={() => setConfirmingRemove(true)}>{t('models.remove')}</button>
      </p>
      {confirmingRemove && <ConfirmRemove model={model} onRemove={() => actions.removeModel(model.id)} onClose={() => setConfirmingRemove(false)} />}
    </section>
  );
}
