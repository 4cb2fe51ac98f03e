import { useEffect, useRef } from 'preact/hooks';
import { formatBytes } from './format.ts';
import { t } from './i18n/index.ts';

export interface DownloadRequest {
  name: string;
  size: number;
  start: () => void;
}

/**
 * Asks before a download on a metered connection. A native modal <dialog> gives focus
 * trapping, Escape to cancel and the dialog role without a library.
 */
export function ConfirmDownload({ request, onClose }: { request: DownloadRequest; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const el = dialog.current;
    if (el && !el.open) el.showModal();
    return () => el?.close();
  }, []);
  const size = formatBytes(request.size);
  return (
    <dialog ref={dialog} class="confirm" data-testid="confirm-download" aria-labelledby="confirm-heading" onClose={onClose}>
      <h2 id="confirm-heading">{t('confirm.heading', { name: request.name })}</h2>
      <p>{t('confirm.body', { size })}</p>
      <p class="actions">
        <button type="button" data-testid="confirm-yes" onClick={() => { request.start(); onClose(); }}>{t('confirm.download', { size })}</button>
        <button type="button" class="link" data-testid="confirm-no" onClick={onClose}>{t('confirm.cancel')}</button>
      </p>
    </dialog>
  );
}
