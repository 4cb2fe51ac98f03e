import { describe, expect, it } from 'vitest';
import { rankRow, softmax, topK } from './postprocess.ts';

describe('softmax', () => {
  it('sums to one and is stable for large logits', () => {
    const p = softmax([1000, 1001, 1002]);
    expect(p.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    expect(p[2]).toBeGreaterThan(p[1]!);
    expect(Number.isFinite(p[0])).toBe(true);
  });
});

describe('topK', () => {
  it('ranks by score with labels and display names, ties by index', () => {
    const ranked = topK([0.1, 0.6, 0.3, 0.6], { 0: 'a', 1: 'b', 2: 'c', 3: 'd' }, 3, { b: 'Bee' });
    expect(ranked.map((p) => p.label)).toEqual(['b', 'd', 'c']);
    expect(ranked[0]!.displayName).toBe('Bee');
    expect(ranked[1]!.displayName).toBeUndefined();
  });
  it('carries per-language display names without touching the label', () => {
    const [top] = topK([0.9, 0.1], { 0: 'Bag', 1: 'Coat' }, 1, {}, { hi: { Bag: 'थैला' }, fr: { Coat: 'Manteau' } });
    expect(top).toMatchObject({ label: 'Bag', localizedNames: { hi: 'थैला' } });
    expect(top!.displayName).toBeUndefined();
  });
  it('names unknown indices', () => {
    expect(topK([0, 1], { 0: 'a' }, 1)[0]!.label).toBe('LABEL_1');
  });
});

describe('rankRow', () => {
  it('leaves probabilities alone and softmaxes logits', () => {
    const probs = rankRow([0.2, 0.8], { output: 'probabilities', id2label: { 0: 'x', 1: 'y' }, k: 2 });
    expect(probs[0]!.score).toBe(0.8);
    const logits = rankRow([0, Math.log(3)], { output: 'logits', id2label: { 0: 'x', 1: 'y' }, k: 2 });
    expect(logits[0]!.score).toBeCloseTo(0.75, 10);
  });
});

describe('topK by selection', () => {
  it('matches a full stable sort on random rows, ties to the lower index', () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let trial = 0; trial < 200; trial++) {
      const row = Array.from({ length: 1 + Math.floor(rand() * 50) }, () => Math.floor(rand() * 8) / 8);
      const k = 1 + Math.floor(rand() * 6);
      const labels = Object.fromEntries(row.map((_, i) => [String(i), `l${i}`]));
      const expected = row.map((_, i) => i).sort((a, b) => row[b]! - row[a]! || a - b).slice(0, k);
      expect(topK(row, labels, k).map((p) => p.index)).toEqual(expected);
    }
  });
});
