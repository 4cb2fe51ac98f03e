import { type SeriesSnapshot, type Stage, type StageStats, STAGES } from '../../runtime/metrics/index.ts';
import { formatNumber, t, tCount, type MessageKey } from '../i18n/index.ts';
import { TableScroll } from '../TableScroll.tsx';
import { barOptions, Chart, lineOptions } from './Chart.tsx';
import { ms } from './format.ts';

const STAGE_LABELS: Record<Stage, MessageKey> = {
  queue: 'metrics.stage.queue',
  preprocess: 'metrics.stage.preprocess',
  inference: 'metrics.stage.inference',
  postprocess: 'metrics.stage.postprocess',
  total: 'metrics.stage.total',
};

/** A row of count and percentiles; shared by the latency, cold-start and benchmark tables. */
export function StatCells({ s }: { s: Pick<StageStats, 'count' | 'p50' | 'p90' | 'p95' | 'p99'> }) {
  return (
    <>
      <td>{s.count}</td>
      <td>{ms(s.p50)}</td>
      <td>{ms(s.p90)}</td>
      <td>{ms(s.p95)}</td>
      <td>{ms(s.p99)}</td>
    </>
  );
}

export function StatHead({ first }: { first: MessageKey }) {
  return (
    <thead>
      <tr>
        <th scope="col">{t(first)}</th>
        <th scope="col">{t('metrics.count')}</th>
        <th scope="col">p50</th>
        <th scope="col">p90</th>
        <th scope="col">p95</th>
        <th scope="col">p99</th>
      </tr>
    </thead>
  );
}

export function seriesId(s: Pick<SeriesSnapshot, 'modelId' | 'backend'>): string {
  return `${s.modelId}-${s.backend}`;
}

/** Latency per stage for one model on one backend: window and since start, histogram, throughput. */
export function LatencyCard({ series }: { series: SeriesSnapshot }) {
  const id = seriesId(series);
  const buckets = series.latencyBuckets;
  const labels = buckets.map((b) => ms(b.upper));
  const heading = t('metrics.latency.heading', { model: series.modelId, version: series.version, backend: series.backend.toUpperCase() });
  return (
    <section class="card" data-testid={`latency-${id}`}>
      <h3>{heading}</h3>
      <TableScroll label={heading}>
        <table class="stats" data-testid={`latency-table-${id}`}>
          <caption>{t('metrics.latency.caption', { window: tCount('requests', series.window.count), since: series.since.count })}</caption>
          <StatHead first="metrics.stage" />
          <tbody>
            {STAGES.map((stage) => (
              <tr key={stage}>
                <th scope="row">{t(STAGE_LABELS[stage])} · {t('metrics.scope.window')}</th>
                <StatCells s={series.window.stages[stage]} />
              </tr>
            ))}
            {STAGES.map((stage) => (
              <tr key={`since-${stage}`}>
                <th scope="row">{t(STAGE_LABELS[stage])} · {t('metrics.scope.since')}</th>
                <StatCells s={series.since.stages[stage]} />
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      <Chart
        key={`hist-${labels.length}`}
        testId={`latency-chart-${id}`}
        label={t('metrics.latency.histogram')}
        options={barOptions(t('metrics.latency.histogram'), labels, t('metrics.requests'))}
        data={[buckets.map((_, i) => i), buckets.map((b) => b.count)]}
      />
      <p class="hint" data-testid={`throughput-${id}`}>{t('metrics.throughput', { rate: formatNumber(series.window.throughputPerSec, { minimumFractionDigits: 2, maximumFractionDigits: 2 }) })}</p>
      <Chart
        testId={`throughput-chart-${id}`}
        label={t('metrics.throughput.chart')}
        options={lineOptions(t('metrics.throughput.chart'), [t('metrics.throughput.unit')], t('metrics.throughput.unit'))}
        data={[series.throughput.map((p) => p.start / 1000), series.throughput.map((p) => p.perSec)]}
      />
    </section>
  );
}
