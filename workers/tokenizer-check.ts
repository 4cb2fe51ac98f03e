import type { EncodedText } from './text-preprocess.ts';

/** Words, punctuation and a capital: text every tokenizer a classifier ships with must encode. */
const PROBE_TEXT = 'Hello world, this is a test.';

/**
 * Why a loaded tokenizer cannot feed a model, as one sentence naming tokenizer.json, or undefined
 * when it can. A tokenizer.json of a kind the tokenizer library does not really support may load
 * and still encode into values that are not token ids (negative, fractional, missing), which
 * reach the model as padding: every text would get the same, silently wrong answer. One check
 * for `model:pack` (before signing) and the worker (at model load).
 */
export function tokenizerProblem(encoder: { encode(text: string): EncodedText }): string | undefined {
  let ids: readonly unknown[];
  try {
    ids = encoder.encode(PROBE_TEXT).ids;
  } catch (error) {
    return `tokenizer.json cannot encode text: ${(error as Error).message}`;
  }
  if (ids.length === 0) return 'tokenizer.json encodes text into no token ids.';
  const bad = ids.findIndex((id) => !(typeof id === 'number' && Number.isInteger(id) && id >= 0));
  if (bad < 0) return undefined;
  return `tokenizer.json encodes "${PROBE_TEXT}" into ${String(ids[bad])}, which is not a token id (a non-negative integer): Lantern cannot run this kind of tokenizer.`;
}
