import { useEffect, useState } from 'preact/hooks';
import type { ModelDescriptor } from '../runtime/index.ts';
import { sameLabels, type ModelSettings } from '../runtime/release/index.ts';
import { t } from './i18n/index.ts';

/**
 * A model's fallback choice (only installed models with the same labels) and its result-cache
 * opt-in, and why a fallback chosen earlier was cleared when it stopped qualifying.
 */
export function ModelPolicies({ modelId, models, settings }: { modelId: string; models: ModelDescriptor[]; settings: ModelSettings }) {
  const [, redraw] = useState(0);
  useEffect(() => settings.subscribe(() => redraw((n) => n + 1)), [settings]);
  const self = models.find((m) => m.id === modelId);
  const choices = self ? models.filter((m) => m.id !== modelId && sameLabels(m.labels, self.labels)) : [];
  const current = settings.get(modelId);
  return (
    <fieldset class="policies" data-testid={`policies-${modelId}`}>
      <legend>{t('release.policies')}</legend>
      <label class="field">
        {t('release.fallback.label')}
        <select data-testid={`fallback-${modelId}`} value={current.fallback ?? ''} onChange={(e) => settings.set(modelId, { fallback: e.currentTarget.value || undefined })}>
          <option value="">{t('release.fallback.none')}</option>
          {choices.map((m) => <option key={m.id} value={m.id}>{m.title} ({m.id})</option>)}
        </select>
      </label>
      {current.fallbackCleared && (
        <p class="hint" role="status" data-testid={`fallback-cleared-${modelId}`} data-reason={current.fallbackCleared.reason}>
          {t(current.fallbackCleared.reason === 'labels' ? 'release.fallback.clearedLabels' : 'release.fallback.clearedRemoved', { fallback: current.fallbackCleared.id })}{' '}
          <button type="button" class="link" onClick={() => settings.set(modelId, { fallbackCleared: undefined })}>{t('models.dismiss')}</button>
        </p>
      )}
      <label class="choice">
        <input type="checkbox" data-testid={`cache-${modelId}`} checked={current.cache === true} onChange={(e) => settings.set(modelId, { cache: e.currentTarget.checked })} />
        {t('release.cache.label')}
      </label>
    </fieldset>
  );
}
