import { useEffect, useState } from 'preact/hooks';
import type { ModelDescriptor } from '../runtime/index.ts';
import type { ReleaseControls, ReleaseDecision, ShadowEvaluation } from '../runtime/release/index.ts';
import type { ModelOverview } from '../runtime/store/index.ts';
import { formatPercent } from './format.ts';
import { formatNumber, t, tCount } from './i18n/index.ts';
import { ShadowFigures } from './ShadowFigures.tsx';

/** `1.1.0` of `spam-filter@1.1.0`. */
export const versionOf = (key: string): string => key.slice(key.indexOf('@') + 1);

/** Shadow evaluation once its code has loaded, redrawn whenever its figures or decisions change. */
export function useEvaluation(release: ReleaseControls): ShadowEvaluation | undefined {
  const [evaluation, setEvaluation] = useState<ShadowEvaluation>();
  const [, redraw] = useState(0);
  useEffect(() => {
    let unsubscribe: (() => void) | undefined;
    let live = true;
    void release.evaluation.then((loaded) => {
      if (!live) return;
      const offFigures = loaded.shadow.subscribe(() => redraw((n) => n + 1));
      const offDecisions = loaded.decisions.subscribe(() => redraw((n) => n + 1));
      unsubscribe = () => {
        offFigures();
        offDecisions();
      };
      setEvaluation(loaded);
    });
    return () => {
      live = false;
      unsubscribe?.();
    };
  }, [release]);
  return evaluation;
}

const DECISION_TEXT = { promoted: 'shadow.decision.promoted', rejected: 'shadow.decision.rejected', ended: 'shadow.decision.ended' } as const;

export function decisionText(d: ReleaseDecision): string {
  return t(DECISION_TEXT[d.decision], {
    version: versionOf(d.key),
    how: t(d.automatic ? 'shadow.how.automatic' : 'shadow.how.manual'),
    runs: tCount('shadowRuns', d.runs),
    agreement: d.agreement === null ? '–' : formatPercent(d.agreement),
    ratio: d.latencyRatio === null ? '–' : `×${formatNumber(d.latencyRatio, { maximumFractionDigits: 2 })}`,
    errors: tCount('errors', d.errors),
  });
}

/** A model's candidate in shadow (figures, promote, reject) and its recent release decisions. */
export function ShadowPanel({ model, described, release, busy, run }: {
  model: ModelOverview;
  /** The active version as the runtime describes it (its labels' names). */
  described: ModelDescriptor | undefined;
  release: ReleaseControls;
  busy: boolean;
  run: (action: () => Promise<unknown>) => void;
}) {
  const evaluation = useEvaluation(release);
  if (!evaluation) return null;
  const candidate = model.pointer?.shadow;
  const decisions = evaluation.decisions.decisions().filter((d) => d.key.startsWith(`${model.id}@`)).slice(0, 3);
  if (!candidate && decisions.length === 0) return null;
  return (
    <div class="shadow" data-testid={`shadow-${model.id}`}>
      {candidate && model.pointer && (
        <>
          <h3>{t('shadow.heading', { version: versionOf(candidate) })}</h3>
          <ShadowFigures figures={evaluation.shadow.figures(candidate)} active={versionOf(model.pointer.active)} candidate={versionOf(candidate)} described={described} testId={`shadow-figures-${model.id}`} />
          <p class="actions">
            <button type="button" disabled={busy} data-testid={`promote-${candidate}`} onClick={() => run(() => evaluation.decisions.promote(candidate))}>{t('shadow.promote')}</button>
            <button type="button" disabled={busy} data-testid={`reject-${candidate}`} onClick={() => run(() => evaluation.decisions.reject(candidate))}>{t('shadow.reject')}</button>
          </p>
        </>
      )}
      {decisions.length > 0 && (
        <ul class="decisions" data-testid={`decisions-${model.id}`}>
          {decisions.map((d) => <li key={`${d.key}:${d.at}`} data-decision={d.decision} data-automatic={String(d.automatic)}>{decisionText(d)}</li>)}
        </ul>
      )}
    </div>
  );
}
