import { parseManifest } from '../store/manifest.ts';
import type { ModelStore } from '../store/model-store.ts';
import type { ModelRegistry } from '../store/registry.ts';
import type { ReleaseDecisions } from './decisions.ts';
import { mayAnswerFor } from './fallback.ts';
import type { ClearedFallback, ModelSettings } from './model-settings.ts';
import { comparableInShadow } from './shadow.ts';
import type { ShadowBook } from './shadow-book.ts';
import type { ShadowRunner } from './shadow-runner.ts';

/**
 * Keeps the release controls in step with the store, now and after every change: settings only
 * for models still installed and fallbacks only while they can answer (cleared with a note), a candidate in shadow only
 * while it speaks its active version's labels (whichever way the active version changed: this is
 * the one place that sees them all), figures only for versions still in shadow, and the runner's
 * candidate sessions freed only when the candidates change. The registry tells of every change
 * (download progress aside), in this window or another, so each pass reads the store once
 * (pointers, versions and the manifests the pointers name), passes never overlap, and changes
 * during a pass are folded into one more pass.
 */
export function followStore(registry: ModelRegistry, controls: { settings: ModelSettings; shadow: ShadowBook; runner: ShadowRunner; decisions: ReleaseDecisions }): void {
  let running = false;
  let again = false;
  let candidates: string | undefined;
  const pass = async () => {
    const { store } = registry;
    const [versions, pointers] = await Promise.all([store.versions(), store.pointers()]);
    const labels = new Map<string, readonly string[]>();
    for (const { id, active, shadow } of pointers) {
      const [activeLabels, candidateLabels] = await Promise.all([labelsOf(store, active), shadow ? labelsOf(store, shadow) : undefined]);
      if (activeLabels) labels.set(id, activeLabels);
      if (shadow && activeLabels && candidateLabels && !comparableInShadow(activeLabels, candidateLabels)) await controls.decisions.end(shadow, active);
    }
    const inShadow = new Set(pointers.flatMap((p) => (p.shadow ? [p.shadow] : [])));
    const now = [...inShadow].sort().join('\n');
    // A new candidate, or one removed, quarantined, revoked or replaced: the runner reads again.
    if (candidates !== undefined && now !== candidates) controls.runner.refresh();
    candidates = now;
    controls.shadow.retain(inShadow);
    const installed = new Set(versions.map((v) => v.id));
    controls.settings.retain(installed);
    for (const id of installed) {
      const fallback = controls.settings.get(id).fallback;
      const reason = fallback === undefined ? undefined : disqualified(labels.get(id), fallback, installed, labels);
      if (reason) controls.settings.clearFallback(id, reason);
    }
  };
  const follow = async () => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        // A store closed by another tab: nothing is dropped on a read that failed.
        await pass().catch(() => undefined);
      } while (again);
    } finally {
      running = false;
    }
  };
  registry.subscribe((change) => { if (change === 'store') void follow(); });
  void follow();
}

/**
 * Why `fallback` can no longer answer for a model speaking `primary` (its active version's labels),
 * or undefined while it can: gone, or speaking other labels (release/fallback.ts, mayAnswerFor),
 * it would be refused on every failure while still taking half of its primary's deadline. A
 * model with no active version (quarantined with nothing to hand over to) keeps its choice: that
 * is when its fallback answers, in the labels it answered in last.
 */
function disqualified(primary: readonly string[] | undefined, fallback: string, installed: ReadonlySet<string>, labels: ReadonlyMap<string, readonly string[]>): ClearedFallback['reason'] | undefined {
  if (!installed.has(fallback)) return 'removed';
  const theirs = labels.get(fallback);
  return primary && theirs && !mayAnswerFor(primary, theirs) ? 'labels' : undefined;
}

/** The labels of installed version `key` (undefined once it is gone). */
async function labelsOf(store: ModelStore, key: string): Promise<readonly string[] | undefined> {
  const record = await store.manifest(key);
  return record && parseManifest(new Uint8Array(record.bytes)).labels;
}
