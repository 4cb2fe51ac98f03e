import { describe, expect, it } from 'vitest';
import { MetricsAggregator } from './aggregator.ts';
import { failedRecord, okRecord } from './aggregator.test-helpers.ts';
import { CSV_COLUMNS, csvCell, exportCsv, exportJson, type MetricsExport } from './export.ts';

function sample() {
  const agg = new MetricsAggregator({ now: () => 1_700_000_000_000 });
  for (let i = 0; i < 5; i++) agg.record(okRecord({ label: i % 2 ? 'spam' : 'ham', score: 0.1 + i * 0.2 }));
  agg.record(okRecord({ modelId: 'fashion-mnist', backend: 'webgpu', label: 'Ankle boot' }));
  agg.record(failedRecord('INPUT'));
  agg.record(failedRecord('BUSY'));
  return agg;
}

/** Minimal RFC 4180 reader, to check that what we write parses back. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') { cell += '"'; i++; } else if (ch === '"') quoted = false; else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') { row.push(cell); cell = ''; }
    else if (ch === '\n') { row.push(cell); rows.push(row); row = []; cell = ''; }
    else if (ch !== '\r') cell += ch;
  }
  return rows;
}

describe('export', () => {
  it('JSON holds the snapshot, the mergeable state and the extras; NaN becomes null', () => {
    const agg = sample();
    const doc = JSON.parse(exportJson(agg.snapshot(), agg.toJSON(), { memory: { jsHeapBytes: null } })) as MetricsExport<{ memory: { jsHeapBytes: null } }>;
    expect(doc.format).toBe('lantern-metrics-export/1');
    expect(doc.exportedAt).toBe('2023-11-14T22:13:20.000Z');
    expect(doc.snapshot.totals).toEqual({ requests: 8, ok: 6, errors: 1, rejections: 1 });
    expect(doc.state.series.length).toBe(2);
    expect(doc.extra.memory.jsHeapBytes).toBeNull();
    const fashion = doc.snapshot.series.find((s) => s.modelId === 'fashion-mnist')!;
    expect(fashion.coldStart.stages.total.p50).toBeNull();
  });

  it('CSV is one rectangular table with every count', () => {
    const rows = parseCsv(exportCsv(sample().snapshot()));
    expect(rows[0]).toEqual([...CSV_COLUMNS]);
    for (const r of rows) expect(r.length).toBe(CSV_COLUMNS.length);
    const find = (section: string, model: string, metric: string, scope = 'since start') =>
      rows.find((r) => r[0] === section && r[1] === model && r[3] === scope && r[4] === metric);
    expect(find('requests', 'spam-filter', 'all')?.[5]).toBe('7');
    expect(find('errors', 'spam-filter', 'INPUT')?.[5]).toBe('1');
    expect(find('rejections', 'spam-filter', 'BUSY')?.[5]).toBe('1');
    expect(find('latency_ms', 'spam-filter', 'total')?.[8]).toBe('14');
    expect(find('labels', 'fashion-mnist', 'Ankle boot')?.[5]).toBe('1');
    expect(find('labels', 'spam-filter', 'ham')?.[6]).toBe('0.6');
  });

  it('escapes cells and defuses spreadsheet formulas', () => {
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('=HYPERLINK("x")')).toBe('"\'=HYPERLINK(""x"")"');
    expect(csvCell(Number.NaN)).toBe('');
    expect(csvCell(1.23456)).toBe('1.235');
  });
});
