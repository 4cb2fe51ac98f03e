import type { MetricsSnapshot, MetricsState, StageStats } from './aggregator.ts';

/**
 * The export formats. Both are built only from aggregates (numbers, model ids, backends, error
 * codes and model labels), so no input can end up in a file a field lead mails around.
 */
export interface MetricsExport<Extra extends object = object> {
  format: 'lantern-metrics-export/1';
  exportedAt: string;
  snapshot: MetricsSnapshot;
  /** The mergeable histograms themselves, so exports from several devices can be combined. */
  state: MetricsState;
  /** Memory, device and benchmark figures, as the view has them. */
  extra: Extra;
}

export function exportJson<Extra extends object>(snapshot: MetricsSnapshot, state: MetricsState, extra: Extra): string {
  const doc: MetricsExport<Extra> = { format: 'lantern-metrics-export/1', exportedAt: new Date(snapshot.generatedAt).toISOString(), snapshot, state, extra };
  // NaN (an empty histogram's percentiles) has no JSON form: it becomes null.
  return JSON.stringify(doc, null, 2);
}

export const CSV_COLUMNS = ['section', 'model', 'backend', 'scope', 'metric', 'count', 'mean', 'min', 'p50', 'p90', 'p95', 'p99', 'max'] as const;

export function csvCell(value: string | number): string {
  if (typeof value === 'number') return Number.isFinite(value) ? String(Math.round(value * 1000) / 1000) : '';
  // Quote when needed; a leading =+-@ is neutralised so spreadsheets do not run it as a formula.
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

type Row = Record<(typeof CSV_COLUMNS)[number], string | number>;

function statRow(section: string, model: string, backend: string, scope: string, metric: string, s: StageStats): Row {
  return { section, model, backend, scope, metric, count: s.count, mean: s.mean, min: s.min, p50: s.p50, p90: s.p90, p95: s.p95, p99: s.p99, max: s.max };
}

function countRow(section: string, model: string, metric: string, count: number, scope = 'since start'): Row {
  return { section, model, backend: '', scope, metric, count, mean: '', min: '', p50: '', p90: '', p95: '', p99: '', max: '' };
}

/** One flat table (latency in milliseconds): easy to open in a spreadsheet and to diff between phones. */
export function exportCsv(snapshot: MetricsSnapshot): string {
  const rows: Row[] = [];
  for (const s of snapshot.series) {
    for (const [stage, st] of Object.entries(s.window.stages)) rows.push(statRow('latency_ms', s.modelId, s.backend, 'window', stage, st));
    for (const [stage, st] of Object.entries(s.since.stages)) rows.push(statRow('latency_ms', s.modelId, s.backend, 'since start', stage, st));
    for (const [stage, st] of Object.entries(s.coldStart.stages)) rows.push(statRow('cold_start_ms', s.modelId, s.backend, 'since start', stage, st));
    rows.push(statRow('warm_start_ms', s.modelId, s.backend, 'since start', 'total', s.warmStart));
    rows.push({ ...countRow('throughput_per_s', s.modelId, 'completed', s.window.count, 'window'), backend: s.backend, mean: s.window.throughputPerSec });
  }
  for (const m of snapshot.models) {
    rows.push(countRow('requests', m.modelId, 'all', m.requests), countRow('requests', m.modelId, 'ok', m.ok));
    for (const [code, n] of Object.entries(m.errors)) rows.push(countRow('errors', m.modelId, code, n));
    for (const [code, n] of Object.entries(m.rejections)) rows.push(countRow('rejections', m.modelId, code, n));
    for (const l of m.labels) rows.push({ ...countRow('labels', m.modelId, l.label, l.count), mean: l.share });
    m.confidence.forEach((n, i) => rows.push(countRow('confidence', m.modelId, `${i / 10}-${(i + 1) / 10}`, n)));
  }
  const lines = [CSV_COLUMNS.join(','), ...rows.map((r) => CSV_COLUMNS.map((c) => csvCell(r[c])).join(','))];
  return `${lines.join('\r\n')}\r\n`;
}
