import { countOf, type ModelDescriptor } from '../runtime/index.ts';
import { agreement, latencyRatio, type ShadowFigures as Figures } from '../runtime/release/index.ts';
import { enShadow } from './i18n/en-shadow.ts';
import { addEnglish, formatNumber, t } from './i18n/index.ts';
import { formatPercent } from './format.ts';
import { describedLabel } from './described-label.ts';
import { TableScroll } from './TableScroll.tsx';

addEnglish(enShadow);

const DASH = '–';

/**
 * A candidate's shadow figures: runs, agreement, latency ratio, errors, and both label
 * distributions side by side. `described`: the active version, whose config names the labels.
 */
export function ShadowFigures({ figures, active, candidate, described, testId }: { figures: Figures; active: string; candidate: string; described: ModelDescriptor | undefined; testId: string }) {
  const agreed = agreement(figures);
  const ratio = latencyRatio(figures);
  const labels = [...new Set([...Object.keys(figures.activeLabels), ...Object.keys(figures.candidateLabels)])].sort();
  return (
    <div class="shadow-figures" data-testid={testId} data-runs={figures.runs} data-agreement={agreed ?? ''} data-errors={figures.errors}>
      <ul class="facts">
        <li data-testid={`${testId}-runs`}>{t('shadow.runs', { runs: figures.runs, skipped: figures.skipped })}</li>
        <li data-testid={`${testId}-agreement`}>{t('shadow.agreement', { agreement: agreed === undefined ? DASH : formatPercent(agreed) })}</li>
        <li data-testid={`${testId}-latency`}>{t('shadow.latency', { ratio: ratio === undefined ? DASH : `×${formatNumber(ratio, { maximumFractionDigits: 2 })}` })}</li>
        <li data-testid={`${testId}-errors`}>{t('shadow.errors', { errors: figures.errors })}</li>
      </ul>
      {labels.length > 0 && (
        <TableScroll label={t('shadow.heading', { version: candidate })}>
          <table class="stats" data-testid={`${testId}-labels`}>
            <thead>
              <tr><th scope="col">{t('shadow.label')}</th><th scope="col">{active}</th><th scope="col">{candidate}</th></tr>
            </thead>
            <tbody>
              {labels.map((label) => (
                <tr key={label}><th scope="row">{describedLabel(described, label)}</th><td>{countOf(figures.activeLabels, label)}</td><td>{countOf(figures.candidateLabels, label)}</td></tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
    </div>
  );
}
