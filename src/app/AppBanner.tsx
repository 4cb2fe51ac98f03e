import { useEffect, useState } from 'preact/hooks';
import type { PwaState } from './pwa.ts';
import type { Services } from './services.ts';
import { t } from './i18n/index.ts';

/** "Update available" and "Install" prompts; the update waits for running classifications. */
export function AppBanner({ services }: { services: Services }) {
  const [state, setState] = useState<PwaState | null>(null);
  const [applying, setApplying] = useState(false);
  useEffect(() => services.pwa.subscribe(setState), [services]);
  if (!state) return null;
  return (
    <>
      {state.updateWaiting && (
        <div class="banner" role="status" data-testid="update-banner">
          <span>{t('pwa.updateAvailable')}</span>
          <button
            type="button"
            data-testid="apply-update"
            disabled={applying}
            onClick={() => {
              setApplying(true);
              void services.pwa.applyUpdate(() => services.lantern.whenIdle());
            }}
          >
            {applying ? t('pwa.updating') : t('pwa.reload')}
          </button>
        </div>
      )}
      {state.canInstall && (
        <button type="button" class="install" data-testid="install" onClick={() => void services.pwa.promptInstall()}>
          {t('pwa.install')}
        </button>
      )}
    </>
  );
}
