import { useState } from 'preact/hooks';
import type { ClassificationResult } from '../runtime/index.ts';
import { formatMs as ms, formatPercent } from './format.ts';
import { t } from './i18n/index.ts';
import { backendReasonText, errorText, fallbackText, noteText } from './i18n/runtime-text.ts';
import { shownName } from './label-names.ts';
import { shareText } from './share.ts';

/** The answer in one line, for sharing: "Bag 43% (unsure) · fashion-mnist v1.0.0". */
function resultSummary(result: ClassificationResult): string {
  const top = result.predictions[0];
  const answer = top ? `${shownName(top.label, top)} ${formatPercent(top.score)}` : '';
  return t(result.unsure ? 'result.share.textUnsure' : 'result.share.text', { answer, id: result.modelId, version: result.version });
}

/** Web Share where the browser has it, else the clipboard; the button says which happened. */
function ShareButton({ result }: { result: ClassificationResult }) {
  const [done, setDone] = useState<'shared' | 'copied' | 'failed' | null>(null);
  const share = () => shareText(t('result.heading'), resultSummary(result)).then(setDone, (error: Error) => setDone(error.name === 'AbortError' ? null : 'failed'));
  return (
    <p class="share">
      <button type="button" data-testid="share" onClick={() => void share()}>{t('result.share')}</button>
      <span role="status" data-testid="share-status">{done && t(`result.share.${done}`)}</span>
    </p>
  );
}

export function ResultCard({ result, thumbnail }: { result: ClassificationResult; thumbnail?: string }) {
  const { timings } = result;
  return (
    <section class="card result" aria-labelledby="result-heading" data-testid="result" data-unsure={String(result.unsure)}>
      <h2 id="result-heading">{t('result.heading')}</h2>
      {thumbnail && <img class="thumb" src={thumbnail} alt={t('result.thumbnail')} data-testid="thumbnail" />}
      {result.unsure && <p class="unsure" data-testid="unsure">{t('result.unsure', { threshold: formatPercent(result.unsureBelow, Number.isInteger(result.unsureBelow * 100) ? 0 : 1) })}</p>}
      <ol class="predictions" data-testid="predictions">
        {result.predictions.map((p, i) => {
          const name = shownName(p.label, p);
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
        <dd data-testid="backend-reason" data-kind={result.backendReason.kind}>{backendReasonText(result.backendReason)}</dd>
        <dt data-testid="model-version">{t('result.model', { id: result.modelId, version: result.version })}</dt>
        <dd>{result.coldStart ? t('result.cold') : t('result.warm')} · {t('result.batch', { size: result.batchSize })}</dd>
      </dl>
      {result.cached && <p class="pill" data-testid="cached">{t('result.cached')}</p>}
      {result.answeredByFallback && (
        <p class="pill warn" data-testid="answered-by-fallback" data-requested={result.answeredByFallback.requested} data-code={result.answeredByFallback.code}>
          {fallbackText(result.answeredByFallback, result.modelId)}
        </p>
      )}
      {result.notes.length > 0 && (
        <ul class="notes" data-testid="notes">
          {result.notes.map((n, i) => <li key={i} data-kind={n.kind}>{noteText(n)}</li>)}
        </ul>
      )}
      <ShareButton result={result} />
    </section>
  );
}

/** An error's code as the runtime reports it ('INTERNAL' for errors from outside Lantern). */
export function errorCode(error: Error): string {
  return 'code' in error ? String(error.code) : 'INTERNAL';
}

/**
 * What went wrong, in the UI language; the runtime's own English message only collapsed,
 * marked as English, for whoever supports the user. `text`: the sentence the user reads, when
 * the screen words this error itself (default: errorText).
 */
export function ErrorMessage({ error, text = errorText(error) }: { error: Error; text?: string }) {
  const detail = error.message;
  return (
    <>
      <p data-testid="error-text">{text}</p>
      {detail && (
        <details class="diagnostic">
          <summary>{t('error.details')}</summary>
          <code lang="en">{detail}</code>
        </details>
      )}
    </>
  );
}

export function ErrorCard({ error }: { error: Error }) {
  return (
    <section class="card error" role="alert" data-testid="error" data-code={errorCode(error)} data-error={error.name}>
      <h2>{t('error.heading')}</h2>
      <ErrorMessage error={error} />
    </section>
  );
}
