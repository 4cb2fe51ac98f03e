import type { Transfer } from '../runtime/store/index.ts';
import { formatBytes, formatPercent } from './format.ts';
import { t } from './i18n/index.ts';

/** Download (or sideload) progress: bar plus bytes, percent and rate. */
export function TransferBar({ transfer, onCancel }: { transfer: Transfer; onCancel?: () => void }) {
  const { progress } = transfer;
  return (
    <div class="transfer" data-testid={`progress-${transfer.id}`} data-percent={progress.percent.toFixed(0)}>
      <progress max={progress.total} value={progress.bytes} aria-label={t('models.progress.label', { id: transfer.id, version: transfer.version })} />
      <span class="transfer-text">
        {t('models.progress.text', {
          done: formatBytes(progress.bytes),
          total: formatBytes(progress.total),
          percent: formatPercent(progress.percent / 100, 0),
          rate: formatBytes(Math.round(progress.rate)),
        })}
      </span>
      {onCancel && <button type="button" data-testid={`cancel-${transfer.id}`} onClick={onCancel}>{t('models.cancel')}</button>}
    </div>
  );
}
