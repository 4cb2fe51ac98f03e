import { useEffect, useState } from 'preact/hooks';
import { DATA_PREFERENCES, type DataPolicy } from '../runtime/field/index.ts';
import { t } from './i18n/index.ts';

/** "Wi-Fi only / any connection / never automatically", and what the browser says about the connection. */
export function DataSettings({ policy }: { policy: DataPolicy }) {
  const [, redraw] = useState(0);
  useEffect(() => policy.subscribe(() => redraw((n) => n + 1)), [policy]);
  const { metered, unmeteredKnown } = policy.state;
  const connection = metered ? 'settings.connection.metered' : unmeteredKnown ? 'settings.connection.unmetered' : 'settings.connection.unknown';
  return (
    <section class="card settings" data-testid="data-settings" data-metered={String(metered)}>
      <h2>{t('settings.heading')}</h2>
      <fieldset>
        <legend>{t('settings.data.legend')}</legend>
        {DATA_PREFERENCES.map((p) => (
          <label class="choice" key={p}>
            <input type="radio" name="data-preference" value={p} data-testid={`data-${p}`} checked={policy.preference === p} onChange={() => policy.setPreference(p)} />
            {t(`settings.data.${p}`)}
          </label>
        ))}
      </fieldset>
      <p class="hint" data-testid="connection">{t(connection)}</p>
    </section>
  );
}
