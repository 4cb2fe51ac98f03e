import { countOf, type ModelDescriptor } from '../../runtime/index.ts';
import { CONFIDENCE_BINS, type ModelSnapshot } from '../../runtime/metrics/index.ts';
import { t } from '../i18n/index.ts';
import { describedLabel } from '../described-label.ts';
import { TableScroll } from '../TableScroll.tsx';
import { barOptions, Chart, lineOptions } from './Chart.tsx';
import { percent } from './format.ts';

const BIN_LABELS = Array.from({ length: CONFIDENCE_BINS }, (_, i) => `${i * 10}%`);
/** Labels drawn over time; the rest still count in the table. */
const MAX_LINES = 8;

/**
 * What a model has been answering: label shares and top-score confidence, overall and over time.
 * `described`: the model as installed now, whose config names its labels for people.
 */
export function DistributionCard({ model, described }: { model: ModelSnapshot; described: ModelDescriptor | undefined }) {
  const id = model.modelId;
  const heading = t('metrics.distribution.heading', { model: id });
  const name = (label: string) => describedLabel(described, label);
  const lines = model.labels.slice(0, MAX_LINES).map((l) => l.label);
  const times = model.overTime.map((s) => s.start / 1000);
  const shares = lines.map((label) => model.overTime.map((s) => (s.total ? (100 * countOf(s.labels, label)) / s.total : null)));
  return (
    <section class="card" data-testid={`distribution-${id}`}>
      <h3>{heading}</h3>
      <TableScroll label={heading}>
        <table class="stats" data-testid={`labels-${id}`}>
          <thead>
            <tr><th scope="col">{t('metrics.label')}</th><th scope="col">{t('metrics.count')}</th><th scope="col">{t('metrics.share')}</th></tr>
          </thead>
          <tbody>
            {model.labels.map((l) => (
              <tr key={l.label}><th scope="row">{name(l.label)}</th><td>{l.count}</td><td>{percent(l.share)}</td></tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      <Chart
        testId={`confidence-chart-${id}`}
        label={t('metrics.confidence.chart')}
        options={barOptions(t('metrics.confidence.chart'), BIN_LABELS, t('metrics.requests'))}
        data={[BIN_LABELS.map((_, i) => i), model.confidence]}
      />
      <Chart
        key={lines.map(name).join('\u0000')}
        testId={`shares-chart-${id}`}
        label={t('metrics.shares.chart')}
        options={lineOptions(t('metrics.shares.chart'), lines.map(name), t('metrics.share'), [0, 100])}
        data={[times, ...shares]}
      />
    </section>
  );
}
