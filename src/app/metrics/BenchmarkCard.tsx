import { useRef, useState } from 'preact/hooks';
import type { Lantern } from '../../runtime/index.ts';
import { BENCHMARK, benchmarkModel, sampleInputs, type BenchmarkRow } from '../../runtime/metrics/index.ts';
import { formatNumber, t } from '../i18n/index.ts';
import { ErrorMessage } from '../ResultCard.tsx';
import { TableScroll } from '../TableScroll.tsx';
import { ms } from './format.ts';

type State = { kind: 'idle' } | { kind: 'running'; model: string } | { kind: 'failed'; error: Error };

/** "Benchmark this device": the same fixed workload on every phone, one table to compare. */
export function BenchmarkCard({ lantern, rows, onRows }: { lantern: Lantern; rows: BenchmarkRow[]; onRows: (rows: BenchmarkRow[]) => void }) {
  const [state, setState] = useState<State>({ kind: 'idle' });
  const controller = useRef<AbortController | null>(null);

  const run = async () => {
    const abort = new AbortController();
    controller.current = abort;
    const done: BenchmarkRow[] = [];
    try {
      for (const model of await lantern.models()) {
        if (model.samples.length === 0) continue;
        setState({ kind: 'running', model: model.id });
        done.push(await benchmarkModel(lantern, model.id, await sampleInputs(model), { signal: abort.signal }));
        onRows([...done]);
      }
      setState({ kind: 'idle' });
    } catch (error) {
      setState({ kind: 'failed', error: error as Error });
    }
  };

  return (
    <section class="card">
      <h3>{t('metrics.benchmark.heading')}</h3>
      <p class="hint">{t('metrics.benchmark.hint', { warmup: BENCHMARK.warmup, runs: BENCHMARK.runs })}</p>
      {state.kind === 'running' ? (
        <p class="working" aria-busy="true">
          <progress />
          {t('metrics.benchmark.running', { model: state.model })}{' '}
          <button type="button" onClick={() => controller.current?.abort()}>{t('classify.cancel')}</button>
        </p>
      ) : (
        <button type="button" data-testid="benchmark" onClick={() => void run()}>{t('metrics.benchmark.run')}</button>
      )}
      {state.kind === 'failed' && <div class="notes" role="alert"><ErrorMessage error={state.error} /></div>}
      {rows.length > 0 && (
        <TableScroll label={t('metrics.benchmark.heading')}>
          <table class="stats" data-testid="benchmark-table">
            <thead>
              <tr>
                <th scope="col">{t('metrics.model')}</th><th scope="col">{t('metrics.device.backend')}</th><th scope="col">{t('metrics.benchmark.first')}</th>
                <th scope="col">p50</th><th scope="col">p95</th><th scope="col">{t('metrics.benchmark.rate')}</th><th scope="col">{t('metrics.benchmark.errors')}</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.modelId} data-testid={`benchmark-${r.modelId}`}>
                  <th scope="row">{r.modelId}</th><td>{r.backend.toUpperCase()}</td><td>{ms(r.firstMs)}</td>
                  <td>{ms(r.p50)}</td><td>{ms(r.p95)}</td><td>{formatNumber(r.throughputPerSec, { minimumFractionDigits: 1, maximumFractionDigits: 1 })}</td><td>{r.errors}/{r.runs}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
    </section>
  );
}
