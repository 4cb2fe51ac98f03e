import { useState } from 'preact/hooks';
import type { StorageState } from '../runtime/store/index.ts';
import { formatBytes, formatPercent } from './format.ts';
import { t } from './i18n/index.ts';

interface Props {
  storage: StorageState;
  /** Asks the browser to keep the models; resolves to whether it now does. */
  keep: () => Promise<boolean>;
}

/**
 * How much the models take, how full the device is, and whether the browser may delete the
 * models when space runs low: a field team offline for days must know before it happens, and
 * can ask the browser to keep them.
 */
export function StorageStatus({ storage, keep }: Props) {
  /** The browser's answer to the user's request, newer than `storage.persisted`. */
  const [answer, setAnswer] = useState<boolean | undefined>(undefined);
  const [asking, setAsking] = useState(false);
  const kept = answer ?? storage.persisted;
  const ask = async () => {
    setAsking(true);
    try {
      setAnswer(await keep());
    } finally {
      setAsking(false);
    }
  };

  return (
    <div class="storage" data-testid="storage">
      <p>
        {t('models.storage.models', { size: formatBytes(storage.modelBytes) })}
        {storage.quota !== undefined && storage.usage !== undefined && (
          <> · {t('models.storage.quota', { used: formatBytes(storage.usage), quota: formatBytes(storage.quota), percent: formatPercent(storage.usage / Math.max(1, storage.quota)) })}</>
        )}
      </p>
      {kept === true && <p data-testid="storage-kept">{t('models.storage.kept')}</p>}
      {kept === false && (
        <>
          <p data-testid="storage-not-kept">{t('models.storage.notKept')}</p>
          <p>
            <button type="button" data-testid="keep-storage" disabled={asking} onClick={() => void ask()}>{t('models.storage.keep')}</button>
          </p>
          {answer === false && <p class="hint" role="status" data-testid="keep-declined">{t('models.storage.declined')}</p>}
        </>
      )}
    </div>
  );
}
