import { BusyError, RuntimeUnavailableError } from './errors.ts';
import type { CandidateRun, ClassifyInput } from './lantern.ts';
import type { ModelDescriptor } from './model-source.ts';
import type { Manifest } from './store/manifest.ts';
import type { CandidateValidator, GoldenOutcome } from './store/registry.ts';
import { modelFiles, toDescriptor } from './store/store-model-source.ts';
import type { VerifiedRead } from './store/verified-read.ts';
import type { ModelFiles } from './worker-client.ts';

/**
 * Golden items submitted at a time: bounds the memory a large golden set of images takes and the
 * share of the request queue the gate holds while users keep classifying.
 */
const GATE_BATCH = 16;

/** What the gate needs of the runtime (Lantern.candidate). */
export interface CandidateRunner {
  candidate(descriptor: ModelDescriptor, files: ModelFiles): CandidateRun;
}

function goldenInputs(manifest: Manifest, read: VerifiedRead & { ok: true }): ClassifyInput[] {
  return (manifest.validation?.items ?? []).map(({ input }) => {
    if (input.kind === 'text') return { kind: 'text', text: input.text };
    // The manifest schema guarantees the path is a verified file of the release.
    return { kind: 'image', image: new Blob([read.byPath.get(input.path)!]) };
  });
}

/**
 * The validation gate's runner: runs the *candidate* version through the runtime's scheduler at
 * background priority (the active version keeps answering meanwhile, and a worker crash is
 * retried as for any request), counts correct and failed golden items, and frees the candidate.
 * A BusyError (the request queue was full) or a RuntimeUnavailableError (ONNX Runtime could not
 * start) is no verdict: it is thrown, not counted.
 */
export function goldenValidator(runtime: () => CandidateRunner): CandidateValidator {
  return async (manifest, read): Promise<GoldenOutcome> => {
    const items = manifest.validation?.items ?? [];
    const inputs = goldenInputs(manifest, read);
    const candidate = runtime().candidate(toDescriptor(manifest), modelFiles(manifest, read));
    const outcome: GoldenOutcome = { total: items.length, correct: 0, failed: 0 };
    try {
      for (let start = 0; start < inputs.length; start += GATE_BATCH) {
        const results = await Promise.allSettled(inputs.slice(start, start + GATE_BATCH).map((input) => candidate.classify(input, { topK: 1 })));
        // A full queue or a runtime that could not start says nothing about the release: the gate
        // stops without a verdict (the version stays unactivated and validates again when the
        // install is resumed).
        const noVerdict = results.find((r) => r.status === 'rejected' && (r.reason instanceof BusyError || r.reason instanceof RuntimeUnavailableError));
        if (noVerdict) throw (noVerdict as PromiseRejectedResult).reason;
        results.forEach((result, i) => {
          if (result.status === 'rejected') outcome.failed++;
          else if (result.value.predictions[0]?.label === items[start + i]!.label) outcome.correct++;
        });
      }
    } finally {
      await candidate.close();
    }
    return outcome;
  };
}
