import { useEffect, useState } from 'preact/hooks';
import { formatBytes } from './format.ts';
import { t } from './i18n/index.ts';
import { downloadingText } from './offline-progress.ts';
import type { OfflineReadiness, OfflineState } from './offline-readiness.ts';

function useOfflineState(offline: OfflineReadiness): OfflineState {
  const [state, setState] = useState<OfflineState>({ phase: 'checking' });
  useEffect(() => offline.subscribe(setState), [offline]);
  return state;
}

/**
 * The first visit's download for offline use: its size and progress, then "Ready to work
 * offline". On a metered connection it asks first, in the Models screen's words. Later visits,
 * already complete, show nothing here (OfflineBadge says it in the header).
 */
export function OfflineStatus({ offline }: { offline: OfflineReadiness }) {
  const state = useOfflineState(offline);
  const [notNow, setNotNow] = useState(false);
  if (state.phase === 'checking' || state.phase === 'unavailable' || (state.phase === 'ready' && !state.justFinished) || notNow) return null;
  const size = 'total' in state ? formatBytes(state.total) : '';
  return (
    <section class="offline-status" data-testid="offline-status" data-phase={state.phase} aria-label={t('offline.region')}>
      <p role="status">
        {state.phase === 'ask' && t('offline.ask')}
        {state.phase === 'downloading' && downloadingText(state)}
        {state.phase === 'ready' && t('offline.ready')}
      </p>
      {state.phase === 'downloading' && (
        <progress max={state.total} value={state.stored} aria-label={t('offline.progress')} data-testid="offline-progress" />
      )}
      {state.phase === 'ask' && (
        <>
          <p>{t('confirm.body', { size })}</p>
          <p class="actions">
            <button type="button" data-testid="offline-download" onClick={() => offline.accept()}>{t('confirm.download', { size })}</button>
            <button type="button" class="link" data-testid="offline-not-now" onClick={() => setNotNow(true)}>{t('confirm.cancel')}</button>
          </p>
        </>
      )}
    </section>
  );
}

/** "Works offline", in the header, once everything is stored. */
export function OfflineBadge({ offline }: { offline: OfflineReadiness }) {
  const state = useOfflineState(offline);
  if (state.phase !== 'ready') return null;
  return <span class="pill ok" data-testid="offline-ready" title={t('offline.worksHint')}>{t('offline.works')}</span>;
}
