import { readReason } from '../../runtime/store/reason-catalog.ts';
import { codeOf, detailsOf, errorText } from './runtime-text.ts';
import { t } from './index.ts';

/**
 * An action's error on the Models screen (loaded with that screen, not the first download). A
 * shadow install refused because the candidate's labels differ from the active version's
 * (store/registry.ts, details.reason 'shadow-labels') says why and that Update still installs
 * it; a golden set that ran past its deadline ('gate-timeout', golden-gate.ts) that the release
 * was not activated and is checked again; any other error is worded as errorText words it. Needs enModels added (ModelsView does).
 */
export function modelsActionText(error: Error): string {
  const details = detailsOf(error);
  const release = { id: String(details.id), version: String(details.version) };
  if (details.reason === 'shadow-labels') return t('models.shadowLabelsDiffer', { ...release, active: String(details.active) });
  if (details.reason === 'gate-timeout') return t('models.gateTimedOut', release);
  return errorText(error);
}

/**
 * Why a model catalog could not be read (adding one, checking for updates). A failed fetch says
 * what to do from its details: a refused origin needs another address or the deployment's
 * configuration, an HTTP status a correct address, no answer at all a connection (offline) or a
 * server that lets this app in (online). An expired
 * catalog says when. Anything else is worded as errorText words it. Needs enModels added, as the
 * Models screen's own messages (ModelsView does).
 */
export function catalogErrorText(error: Error): string {
  const code = codeOf(error);
  const details = detailsOf(error);
  if (code === 'NETWORK') {
    if (typeof details.origin === 'string') return t('models.catalogError.notAllowed', { origin: details.origin });
    if (typeof details.status === 'number') return t('models.catalogError.status', { status: String(details.status) });
    // Online, a fetch that got no answer may as well have been refused: a model server without
    // cross-origin headers, or an address this app's Content-Security-Policy does not list, fail
    // the same way (the browser tells the page no more), and "offline" would send a publisher
    // looking at the wrong thing. A stall is a connection too slow to finish.
    return t(navigator.onLine && !details.stalled ? 'models.catalogError.refused' : 'models.catalogError.unreachable');
  }
  if (code === 'VALIDATION' && typeof details.expiresAt === 'string') return t('models.catalogError.expired', { date: details.expiresAt.slice(0, 10) });
  return errorText(error);
}

/**
 * A reason the store recorded for a version (runtime/store/reasons.ts) in the user's language;
 * any other text, a publisher's own words for one, as it is. Needs enModels added (ModelsView does).
 */
export function storeReasonText(text: string): string {
  const read = readReason(text);
  return read ? t(`models.reason.${read.kind}`, read.figures) : text;
}
