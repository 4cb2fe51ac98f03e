import { type MetricsAggregator, exportCsv, exportJson } from '../../runtime/metrics/index.ts';
import { t } from '../i18n/index.ts';

function download(name: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** Export as JSON (with the mergeable histograms) or CSV, and a reset. */
export function ExportBar({ metrics, extra, onClear }: { metrics: MetricsAggregator; extra: () => object; onClear: () => void }) {
  const stamp = () => new Date().toISOString().replace(/[:.]/g, '-');
  return (
    <p class="actions">
      <button type="button" data-testid="export-json" onClick={() => download(`lantern-metrics-${stamp()}.json`, exportJson(metrics.snapshot(), metrics.toJSON(), extra()), 'application/json')}>
        {t('metrics.export.json')}
      </button>
      <button type="button" data-testid="export-csv" onClick={() => download(`lantern-metrics-${stamp()}.csv`, exportCsv(metrics.snapshot()), 'text/csv')}>
        {t('metrics.export.csv')}
      </button>
      <button type="button" class="link" data-testid="metrics-clear" onClick={onClear}>{t('metrics.clear')}</button>
    </p>
  );
}
