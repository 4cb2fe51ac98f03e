import type { ModelSnapshot } from '../../runtime/metrics/index.ts';
import { t } from '../i18n/index.ts';
import { TableScroll } from '../TableScroll.tsx';

/** Requests, errors and rejections (busy, cancelled, timed out) by code, per model. */
export function FailuresCard({ models }: { models: ModelSnapshot[] }) {
  const rows = models.flatMap((m) => [
    ...Object.entries(m.errors).map(([code, n]) => ({ model: m.modelId, kind: t('metrics.failures.error'), code, n })),
    ...Object.entries(m.rejections).map(([code, n]) => ({ model: m.modelId, kind: t('metrics.failures.rejection'), code, n })),
  ]);
  return (
    <section class="card">
      <h3>{t('metrics.failures.heading')}</h3>
      <TableScroll label={t('metrics.requests')}>
        <table class="stats" data-testid="requests-table">
          <thead>
            <tr><th scope="col">{t('metrics.model')}</th><th scope="col">{t('metrics.requests')}</th><th scope="col">{t('metrics.ok')}</th></tr>
          </thead>
          <tbody>
            {models.map((m) => (
              <tr key={m.modelId} data-testid={`requests-${m.modelId}`} data-count={m.requests}>
                <th scope="row">{m.modelId}</th><td>{m.requests}</td><td>{m.ok}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      {rows.length === 0 ? <p class="hint">{t('metrics.failures.none')}</p> : (
        <TableScroll label={t('metrics.failures.heading')}>
          <table class="stats" data-testid="failures-table">
            <thead>
              <tr><th scope="col">{t('metrics.model')}</th><th scope="col">{t('metrics.failures.kind')}</th><th scope="col">{t('metrics.failures.code')}</th><th scope="col">{t('metrics.count')}</th></tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={`${r.model}-${r.code}`} data-testid={`failure-${r.model}-${r.code}`}>
                  <th scope="row">{r.model}</th><td>{r.kind}</td><td>{r.code}</td><td>{r.n}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
    </section>
  );
}
