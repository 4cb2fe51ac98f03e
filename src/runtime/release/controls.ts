import { parseManifest } from '../store/manifest.ts';
import type { ModelStore } from '../store/model-store.ts';
import type { ModelRegistry } from '../store/registry.ts';
import { ReleaseDecisions } from './decisions.ts';
import { ModelSettings } from './model-settings.ts';
import { comparableInShadow } from './shadow.ts';
import { ShadowBook } from './shadow-book.ts';
import { ShadowRunner, type ShadowCandidate, type ShadowRuntime } from './shadow-runner.ts';
import { deviceSeed, rolloutBucket } from './rollout.ts';
import type { KeyValueStorage } from './stored-value.ts';

/** The release controls the app wires into the runtime: per-model settings and shadow evaluation. */
export interface ReleaseControls {
  settings: ModelSettings;
  shadow: ShadowBook;
  runner: ShadowRunner;
  decisions: ReleaseDecisions;
  /** This device's staged-rollout bucket for a model (release/rollout.ts). */
  bucketFor(modelId: string): Promise<number>;
}

export function releaseControls(deps: {
  /** The runtime, once created (it takes `settings` and the runner's `observe`). */
  runtime: () => ShadowRuntime & { refreshModels(): void };
  registry: Promise<ModelRegistry>;
  candidate(modelId: string): Promise<ShadowCandidate | undefined>;
  storage: KeyValueStorage | undefined;
  hidden(): boolean;
}): ReleaseControls {
  const shadow = new ShadowBook(deps.storage);
  const runner: ShadowRunner = new ShadowRunner({
    runtime: {
      get queueDepth() { return deps.runtime().queueDepth; },
      get schedulerStats() { return deps.runtime().schedulerStats; },
      candidate: (descriptor, files) => deps.runtime().candidate(descriptor, files),
    },
    candidate: (id) => deps.candidate(id),
    book: shadow,
    hidden: deps.hidden,
    // The release's own bar was met: promote without asking (recorded as automatic).
    onReady: (candidate) => void decisions.promote(candidate.key, true).catch(() => undefined),
  });
  const decisions = new ReleaseDecisions({
    registry: deps.registry,
    book: shadow,
    storage: deps.storage,
    onDecided: () => {
      deps.runtime().refreshModels();
      runner.refresh();
    },
  });
  const settings = new ModelSettings(deps.storage);
  void deps.registry.then((registry) => followStore(registry, { settings, shadow, runner, decisions }));
  let seed: string | undefined;
  const bucketFor = (modelId: string) => rolloutBucket(seed ??= deviceSeed(deps.storage), modelId);
  return { settings, shadow, runner, decisions, bucketFor };
}

/**
 * Keeps the release controls in step with the store, now and after every change: settings only
 * for models still installed and fallbacks only while they can answer, a candidate in shadow only while it speaks its active version's
 * labels (whichever way the active version changed: this is the one place that sees them all),
 * figures only for versions still in shadow, and the runner's candidate sessions freed only when
 * the candidates change. The registry notifies on every download progress tick and notice, so
 * each pass reads the store once, passes never overlap, and notifications during a pass are
 * folded into one more pass.
 */
function followStore(registry: ModelRegistry, controls: { settings: ModelSettings; shadow: ShadowBook; runner: ShadowRunner; decisions: ReleaseDecisions }): void {
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
    controls.settings.retain(new Set(versions.map((v) => v.id)), labels);
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
  registry.subscribe(() => void follow());
  void follow();
}

/** The labels of installed version `key` (undefined once it is gone). */
async function labelsOf(store: ModelStore, key: string): Promise<readonly string[] | undefined> {
  const record = await store.manifest(key);
  return record && parseManifest(new Uint8Array(record.bytes)).labels;
}
