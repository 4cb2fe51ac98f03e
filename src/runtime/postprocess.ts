import type { LabelName } from './labels.ts';

/** Turns a model's output row into ranked labels. */
export interface Prediction extends LabelName {
  label: string;
  score: number;
  index: number;
}

export function softmax(values: ArrayLike<number>): Float64Array {
  let max = -Infinity;
  for (let i = 0; i < values.length; i++) max = Math.max(max, values[i]!);
  const out = new Float64Array(values.length);
  let sum = 0;
  for (let i = 0; i < values.length; i++) {
    out[i] = Math.exp(values[i]! - max);
    sum += out[i]!;
  }
  for (let i = 0; i < out.length; i++) out[i]! /= sum;
  return out;
}

/**
 * Indices of the k highest scores, highest first, ties to the lower index: one pass keeping a
 * sorted list of k (k is small; a 1000-class row is never sorted whole).
 */
function topIndices(scores: ArrayLike<number>, k: number): number[] {
  const best: number[] = [];
  for (let i = 0; i < scores.length; i++) {
    const score = scores[i]!;
    if (best.length === k && score <= scores[best[k - 1]!]!) continue;
    let at = best.length;
    while (at > 0 && score > scores[best[at - 1]!]!) at--;
    best.splice(at, 0, i);
    if (best.length > k) best.pop();
  }
  return best;
}

/** `names`: each label's names in label-index order (labels.ts `labelNamesOf`). */
export function topK(scores: ArrayLike<number>, id2label: Record<string, string>, k: number, names?: readonly LabelName[]): Prediction[] {
  return topIndices(scores, Math.max(1, k)).map((index) => ({ label: id2label[String(index)] ?? `LABEL_${index}`, score: scores[index]!, index, ...names?.[index] }));
}

/** Independent probabilities per label (multi-label heads). */
function sigmoid(values: ArrayLike<number>): Float64Array {
  return Float64Array.from(values, (v) => 1 / (1 + Math.exp(-v)));
}

const SCORES = { softmax, sigmoid, none: (row: ArrayLike<number>) => row };

/** Ranks one output row after the model's score function (scoreFunction in model-config.ts). */
export function rankRow(
  row: ArrayLike<number>,
  options: { scores: keyof typeof SCORES; id2label: Record<string, string>; k: number; names?: readonly LabelName[] },
): Prediction[] {
  const scores = SCORES[options.scores](row);
  return topK(scores, options.id2label, options.k, options.names);
}
