import type { ClassificationResult } from '../runtime/lantern.ts';
import type { Prediction } from '../runtime/postprocess.ts';
import { formatMs as ms, formatPercent } from './format.ts';
import { language, t } from './i18n/index.ts';

/** The model's own name for a label in the UI language, else its default one, else the label. */
function shownName(p: Prediction): string {
  return p.localizedNames?.[language()] ?? p.displayName ?? p.label;
}

export function ResultCard({ result }: { result: ClassificationResult }) {
  const { timings } = result;
  return (
    <section class="card result" aria-labelledby="result-heading" data-testid="result">
      <h2 id="result-heading">{t('result.heading')}</h2>
      <ol class="predictions" data-testid="predictions">
        {result.predictions.map((p, i) => {
          const name = shownName(p);
          return (
            <li key={p.label} data-testid={i === 0 ? 'top-label' : undefined} data-label={p.label}>
              <span class="label">{name}{name !== p.label && <small class="raw-label" title={t('result.labelRaw', { label: p.label })}> ({p.label})</small>}</span>
              <meter min={0} max={1} value={p.score} aria-label={t('result.score', { label: name, score: formatPercent(p.score) })} />
              <span class="score">{formatPercent(p.score)}</span>
            </li>
          );
        })}
      </ol>
      <dl class="facts">
        <dt>{t('result.latency', { ms: ms(timings.totalMs) })}</dt>
        <dd data-testid="timings">{t('result.timings', { queue: ms(timings.queueMs), load: ms(timings.loadMs), pre: ms(timings.preprocessMs), inf: ms(timings.inferenceMs), post: ms(timings.postprocessMs) })}</dd>
        <dt data-testid="backend" data-backend={result.backend}>{t('result.backend', { backend: result.backend.toUpperCase() })}</dt>
        <dd data-testid="backend-reason">{result.backendReason}</dd>
        <dt data-testid="model-version">{t('result.model', { id: result.modelId, version: result.version })}</dt>
        <dd>{result.coldStart ? t('result.cold') : t('result.warm')} · {t('result.batch', { size: result.batchSize })}</dd>
      </dl>
      {result.cached && <p class="pill" data-testid="cached">{t('result.cached')}</p>}
      {result.answeredByFallback && (
        <p class="pill warn" data-testid="answered-by-fallback" data-requested={result.answeredByFallback.requested} data-code={result.answeredByFallback.code}>
          {t('result.answeredByFallback', { requested: result.answeredByFallback.requested, id: result.modelId })}
        </p>
      )}
      {result.notes.length > 0 && (
        <ul class="notes" data-testid="notes">
          {result.notes.map((n) => <li key={n}>{n}</li>)}
        </ul>
      )}
    </section>
  );
}

export function ErrorCard({ error }: { error: Error }) {
  const code = 'code' in error ? String((error as { code: unknown }).code) : 'INTERNAL';
  return (
    <section class="card error" role="alert" data-testid="error" data-code={code} data-error={error.name}>
      <h2>{t('error.heading')}</h2>
      <p>{error.message}</p>
    </section>
  );
}
