import { useEffect, useState } from 'preact/hooks';
import type { ModelDescriptor } from '../../runtime/index.ts';
import type { ModelOverview } from '../../runtime/store/index.ts';
import { t } from '../i18n/index.ts';
import type { Services } from '../services.ts';
import { decisionText, useEvaluation, versionOf } from '../ShadowPanel.tsx';
import { ShadowFigures } from '../ShadowFigures.tsx';

/** Every candidate in shadow on this device, with its figures, and the latest release decisions. */
export function ShadowCard({ services, described }: { services: Services; described: readonly ModelDescriptor[] }) {
  const evaluation = useEvaluation(services.release);
  const [models, setModels] = useState<ModelOverview[]>([]);
  useEffect(() => {
    let live = true;
    void services.models.then(({ registry }) => registry.overview()).then((list) => live && setModels(list), () => undefined);
    return () => {
      live = false;
    };
  }, [services]);
  if (!evaluation) return null;
  const candidates = models.filter((m) => m.pointer?.shadow);
  const decisions = evaluation.decisions.decisions().slice(0, 5);
  if (candidates.length === 0 && decisions.length === 0) return null;
  return (
    <section class="card" data-testid="shadow-card">
      <h3>{t('metrics.shadow.heading')}</h3>
      {candidates.map((m) => (
        <div key={m.id}>
          <h4>{t('metrics.shadow.candidate', { id: m.id, version: versionOf(m.pointer!.shadow!) })}</h4>
          <ShadowFigures figures={evaluation.shadow.figures(m.pointer!.shadow!)} active={versionOf(m.pointer!.active)} candidate={versionOf(m.pointer!.shadow!)} described={described.find((d) => d.id === m.id)} testId={`metrics-shadow-${m.id}`} />
        </div>
      ))}
      {decisions.length > 0 && (
        <ul class="decisions" data-testid="metrics-decisions">
          {decisions.map((d) => <li key={`${d.key}:${d.at}`}>{d.key.slice(0, d.key.indexOf('@'))}: {decisionText(d)}</li>)}
        </ul>
      )}
    </section>
  );
}
