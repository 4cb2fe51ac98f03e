import type { Manifest } from './store/manifest.ts';
import type { CandidateValidator, GoldenOutcome } from './store/registry.ts';
import { modelFiles } from './store/store-model-source.ts';
import type { VerifiedRead } from './store/verified-read.ts';
import type { ClassifyInput, WorkerClient } from './worker-client.ts';

/** Items per worker call: bounds the memory a large golden set of images can take at once. */
const GATE_BATCH = 16;

function goldenInputs(manifest: Manifest, read: VerifiedRead & { ok: true }): ClassifyInput[] {
  return (manifest.validation?.items ?? []).map(({ input }) => {
    if (input.kind === 'text') return { kind: 'text', text: input.text };
    // The manifest schema guarantees the path is a verified file of the release.
    return { kind: 'image', image: new Blob([read.byPath.get(input.path)!]) };
  });
}

/**
 * The validation gate's runner: loads the *candidate* version in an inference worker under a key
 * of its own (the active version keeps answering meanwhile), classifies the release's golden
 * set, counts correct and failed items, and unloads the candidate.
 */
export function goldenValidator(client: () => WorkerClient): CandidateValidator {
  return async (manifest, read): Promise<GoldenOutcome> => {
    const items = manifest.validation?.items ?? [];
    const inputs = goldenInputs(manifest, read);
    const worker = client();
    const files = { ...modelFiles(manifest, read), key: `candidate:${crypto.randomUUID()}` };
    const outcome: GoldenOutcome = { total: items.length, correct: 0, failed: 0 };
    await worker.ensureLoaded(files.key, () => Promise.resolve(files));
    try {
      for (let start = 0; start < inputs.length; start += GATE_BATCH) {
        const batch = await worker.classify(files.key, inputs.slice(start, start + GATE_BATCH), 1);
        batch.items.forEach((item, i) => {
          if (!item.ok) outcome.failed++;
          else if (item.value.predictions[0]?.label === items[start + i]!.label) outcome.correct++;
        });
      }
    } finally {
      await worker.unload(files.key).catch(() => undefined);
    }
    return outcome;
  };
}
