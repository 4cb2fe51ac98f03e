import { COLD_STAGES, type ColdStage, type SeriesSnapshot } from '../../runtime/metrics/index.ts';
import { t, type MessageKey } from '../i18n/index.ts';
import { TableScroll } from '../TableScroll.tsx';
import { seriesId, StatCells, StatHead } from './LatencyCard.tsx';

const COLD_LABELS: Record<ColdStage, MessageKey> = {
  files: 'metrics.cold.files',
  create: 'metrics.cold.create',
  load: 'metrics.cold.load',
  firstRun: 'metrics.cold.firstRun',
  total: 'metrics.cold.total',
};

/** Cold starts (load then first run) next to warm ones, for every model and backend. */
export function StartCard({ series }: { series: SeriesSnapshot[] }) {
  const heading = t('metrics.cold.heading');
  return (
    <section class="card">
      <h3>{heading}</h3>
      <p class="hint">{t('metrics.cold.hint')}</p>
      {series.map((s) => {
        const caption = `${s.modelId} · ${s.backend.toUpperCase()}`;
        return (
          <TableScroll key={seriesId(s)} label={`${heading}: ${caption}`}>
            <table class="stats" data-testid={`starts-${seriesId(s)}`}>
              <caption>{caption}</caption>
              <StatHead first="metrics.stage" />
              <tbody>
                {COLD_STAGES.map((stage) => (
                  <tr key={stage}>
                    <th scope="row">{t(COLD_LABELS[stage])}</th>
                    <StatCells s={s.coldStart.stages[stage]} />
                  </tr>
                ))}
                <tr>
                  <th scope="row">{t('metrics.warm.total')}</th>
                  <StatCells s={s.warmStart} />
                </tr>
              </tbody>
            </table>
          </TableScroll>
        );
      })}
    </section>
  );
}
