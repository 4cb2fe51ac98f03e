import { TimeoutError } from './errors.ts';
import { GOLDEN_ITEM_TIMEOUT_MS, type CandidateRunner } from './golden-gate.ts';
import type { CandidateRun, ClassifyInput } from './lantern.ts';
import type { Manifest } from './store/manifest.ts';
import { gateHasNoVerdict } from './store/gate-verdict.ts';
import type { GoldenOutcome } from './store/registry.ts';
import { modelFiles, toDescriptor } from './store/store-model-source.ts';
import type { VerifiedRead } from './store/verified-read.ts';
import { withDeadline } from './timer.ts';

/**
 * Golden items submitted at a time: bounds the memory a large golden set of images takes and the
 * share of the request queue the gate holds while users keep classifying.
 */
const GATE_BATCH = 16;

/**
 * How long the gate waits for the candidate's session: its files read, ONNX Runtime started if no
 * worker runs yet (on a slow link, its download), the session created. Past it the install is no
 * verdict (TimeoutError), so an update never stalls on a load; a load that keeps its worker busy
 * ABANDONED_CALL_LIMIT_MS longer gets the worker restarted (WorkerClient).
 */
export const CANDIDATE_LOAD_TIMEOUT_MS = 120_000;

function goldenInputs(manifest: Manifest, read: VerifiedRead & { ok: true }): ClassifyInput[] {
  return (manifest.validation?.items ?? []).map(({ input }) => {
    if (input.kind === 'text') return { kind: 'text', text: input.text };
    // The manifest schema guarantees the path is a verified file of the release.
    return { kind: 'image', image: new Blob([read.byPath.get(input.path)!]) };
  });
}

/** The candidate's load: undefined once loaded, else its error (TimeoutError past CANDIDATE_LOAD_TIMEOUT_MS). */
async function loadFailureOf(candidate: CandidateRun, { id, version }: Manifest, signal: AbortSignal | undefined): Promise<unknown> {
  const timeout = new TimeoutError(`Loading ${id} ${version} took longer than ${CANDIDATE_LOAD_TIMEOUT_MS / 1000} s; the release was not activated and is checked again when its install is retried.`, {
    reason: 'gate-timeout', id, version,
  });
  return withDeadline(signal, CANDIDATE_LOAD_TIMEOUT_MS, timeout, (until) => candidate.load({ signal: until })).then(() => undefined, (error: unknown) => error);
}

/**
 * The validation gate's runner. It loads the *candidate* version in a worker, with or without a
 * golden set: a graph ONNX Runtime cannot load, or a tokenizer or preprocessor that cannot be
 * built, is refused (`unloadable`) before it replaces a version that works. Then it runs the
 * golden set through the runtime's scheduler at background priority (the active version keeps
 * answering meanwhile, and a worker crash is retried as for any request), counts correct and
 * failed items, and frees the candidate. What says nothing of the release (gateHasNoVerdict:
 * cancelled, a full queue, ONNX Runtime that could not start, a run past its time that did not
 * hang a worker) is thrown, not counted.
 */
export async function runGoldenSet(runtime: CandidateRunner, manifest: Manifest, read: VerifiedRead & { ok: true }, signal: AbortSignal | undefined): Promise<GoldenOutcome> {
  const items = manifest.validation?.items ?? [];
  const inputs = goldenInputs(manifest, read);
  const files = modelFiles(manifest, read);
  // A copy of the graph for each load (Lantern.candidate): a crash retry loads it again.
  const candidate = runtime.candidate(toDescriptor(manifest), async () => ({ ...files, onnx: files.onnx.slice(0) }));
  const outcome: GoldenOutcome = { total: items.length, correct: 0, failed: 0 };
  let loadFailure: unknown;
  let noVerdict: unknown;
  try {
    loadFailure = await loadFailureOf(candidate, manifest, signal);
    for (let start = 0; loadFailure === undefined && start < inputs.length && noVerdict === undefined; start += GATE_BATCH) {
      const results = await Promise.allSettled(inputs.slice(start, start + GATE_BATCH)
        .map((input) => candidate.classify(input, { topK: 1, signal, runTimeoutMs: GOLDEN_ITEM_TIMEOUT_MS })));
      noVerdict = results.find((r): r is PromiseRejectedResult => r.status === 'rejected' && gateHasNoVerdict(r.reason))?.reason;
      results.forEach((result, i) => {
        if (result.status === 'rejected') outcome.failed++;
        else if (result.value.predictions[0]?.label === items[start + i]!.label) outcome.correct++;
      });
    }
  } finally {
    // Waits for a worker hung on the candidate's run to be restarted (see CandidateRun.close).
    await candidate.close();
  }
  if (loadFailure !== undefined) {
    if (gateHasNoVerdict(loadFailure)) throw loadFailure;
    return { ...outcome, failed: outcome.total, unloadable: true };
  }
  if (candidate.hung()) return { ...outcome, hung: true };
  if (noVerdict instanceof TimeoutError) {
    // Said for the install that waited on it, not as a request that took too long.
    const { id, version } = manifest;
    throw new TimeoutError(`A run of the golden set of ${id} ${version} did not finish within ${GOLDEN_ITEM_TIMEOUT_MS / 1000} s; the release was not activated and is checked again when its install is retried.`, {
      reason: 'gate-timeout', id, version,
    }, { cause: noVerdict });
  }
  if (noVerdict !== undefined) throw noVerdict;
  return outcome;
}
