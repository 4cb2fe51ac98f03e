import { errorText } from './runtime-text.ts';
import { t } from './index.ts';

/**
 * An action's error on the Models screen (loaded with that screen, not the first download). A
 * shadow install refused because the candidate's labels differ from the active version's
 * (store/registry.ts, details.reason 'shadow-labels') says why and that Update still installs
 * it; any other error is worded as errorText words it. Needs enModels added (ModelsView does).
 */
export function modelsActionText(error: Error): string {
  const details = 'details' in error && typeof error.details === 'object' && error.details ? error.details as Record<string, unknown> : {};
  if (details.reason !== 'shadow-labels') return errorText(error);
  return t('models.shadowLabelsDiffer', { id: String(details.id), version: String(details.version), active: String(details.active) });
}
