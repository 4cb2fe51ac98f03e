import { useEffect, useState } from 'preact/hooks';
import type { DeviceReport, Lantern } from '../runtime/lantern.ts';
import { ClassifyView } from './ClassifyView.tsx';
import { t } from './i18n/index.ts';
import { useOnline } from './useOnline.ts';

export function App({ lantern }: { lantern: Lantern }) {
  const online = useOnline();
  const [device, setDevice] = useState<DeviceReport | null>(null);
  useEffect(() => {
    lantern.device().then(setDevice, () => setDevice(null));
  }, [lantern]);

  return (
    <>
      <header class="topbar">
        <h1>{t('app.title')}</h1>
        <p class="tagline">{t('app.tagline')}</p>
        <p class="status" data-testid="device">
          <span class={online ? 'pill ok' : 'pill warn'} data-testid="online">{online ? t('status.online') : t('status.offline')}</span>
          {device && (
            <>
              <span class="pill" data-testid="device-backend" data-backend={device.choice.backend} title={device.choice.reason}>
                {t('status.backend', { backend: device.choice.backend.toUpperCase() })}
              </span>
              <span class="pill" data-testid="threads" data-isolated={String(device.crossOriginIsolated)}>
                {t('status.isolated', { threads: device.choice.threads })}
              </span>
            </>
          )}
        </p>
      </header>
      <main>
        <ClassifyView lantern={lantern} />
      </main>
    </>
  );
}
