import { importForAction, loadChunk } from './field/lazy-chunk.ts';
import type { CandidateRun } from './lantern.ts';
import type { ModelDescriptor } from './model-source.ts';
import type { CandidateValidator } from './store/registry.ts';
import type { ModelFiles } from './worker-client.ts';

/** What the gate needs of the runtime (Lantern.candidate). */
export interface CandidateRunner {
  candidate(descriptor: ModelDescriptor, files: () => Promise<ModelFiles>): CandidateRun;
}

/**
 * How long a golden item's run may take once dispatched (its wait in the queue, behind users'
 * requests or while the page is hidden, does not count). A run still going then is given up; one
 * that keeps its worker busy ABANDONED_CALL_LIMIT_MS more hangs (the worker is restarted), and the
 * release is refused. Long enough for a large image model on a slow device.
 */
export const GOLDEN_ITEM_TIMEOUT_MS = 60_000;

/**
 * The validation gate's runner for a store (`validate`): loads a release, then runs its golden set,
 * on the runtime `runtime()` gives (golden-run.ts). That code is not in the first screen's (the
 * initial JavaScript budget, e2e/serving.spec.ts) but is fetched as soon as the validator is made,
 * not at the first install: a release sideloaded later with no network, on a page no service
 * worker serves yet (a first visit), is still judged. A fetch that fails is tried again once the
 * browser is back online (loadChunk).
 */
export function goldenValidator(runtime: () => CandidateRunner): CandidateValidator {
  void loadChunk(loadRunner);
  return async (manifest, read, signal) => (await importForAction(loadRunner)).runGoldenSet(runtime(), manifest, read, signal);
}

const loadRunner = () => import('./golden-run.ts');
