import { useEffect, useState } from 'preact/hooks';
import type { MemoryReport, MemorySampler } from '../../runtime/metrics/index.ts';
import { formatBytes } from '../format.ts';
import { formatDateTime, t, type MessageKey } from '../i18n/index.ts';
import { Chart, lineOptions } from './Chart.tsx';
import { figure } from './format.ts';

const ROWS: [keyof Omit<MemoryReport, 'sampledAt'>, MessageKey][] = [
  ['jsHeapUsed', 'metrics.memory.jsHeapUsed'],
  ['jsHeapLimit', 'metrics.memory.jsHeapLimit'],
  ['workerWasm', 'metrics.memory.workerWasm'],
  ['modelBytes', 'metrics.memory.modelBytes'],
  ['storageUsage', 'metrics.memory.storageUsage'],
  ['storageQuota', 'metrics.memory.storageQuota'],
  ['userAgentSpecific', 'metrics.memory.userAgentSpecific'],
];

/** The page-and-workers figure with the time it was taken (a measurement can take a minute). */
function uaFigure(f: MemoryReport['userAgentSpecific']): string {
  if (f.bytes === null) return f.reason === 'pending' ? t('metrics.memory.uaPending') : figure(f);
  return f.measuredAt === undefined ? formatBytes(f.bytes) : t('metrics.memory.measuredAt', { size: formatBytes(f.bytes), time: formatDateTime(f.measuredAt, { timeStyle: 'medium' }) });
}

/** Memory figures; the ones the browser does not give are listed with the reason, not hidden. */
export function MemoryCard({ sampler }: { sampler: MemorySampler }) {
  const [report, setReport] = useState(sampler.latest);
  useEffect(() => {
    const off = sampler.subscribe(() => setReport(sampler.latest));
    sampler.start();
    return () => {
      off();
      sampler.stop();
    };
  }, [sampler]);
  const mb = (v: number | null) => (v === null ? null : v / 1_048_576);
  return (
    <section class="card">
      <h3>{t('metrics.memory.heading')}</h3>
      {report ? (
        <dl class="facts" data-testid="memory">
          {ROWS.map(([key, label]) => (
            <div class="fact" key={key}>
              <dt>{t(label)}</dt>
              <dd data-testid={`memory-${key}`} data-provided={String(report[key].bytes !== null)}>{key === 'userAgentSpecific' ? uaFigure(report[key]) : figure(report[key])}</dd>
            </div>
          ))}
        </dl>
      ) : <p aria-busy="true">{t('metrics.na.pending')}</p>}
      <Chart
        testId="memory-chart"
        label={t('metrics.memory.chart')}
        options={lineOptions(t('metrics.memory.chart'), [t('metrics.memory.jsHeapUsed'), t('metrics.memory.workerWasm')], 'MB')}
        data={[sampler.history.map((h) => h.at / 1000), sampler.history.map((h) => mb(h.jsHeapUsed)), sampler.history.map((h) => mb(h.workerWasm))]}
      />
    </section>
  );
}
