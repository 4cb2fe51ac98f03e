import { describe, expect, it } from 'vitest';
import { labelNamesOf, labelsOf } from './labels.ts';
import { rankRow, softmax, topK } from './postprocess.ts';
import { RuntimeConfigSchema, scoreFunction } from './model-config.ts';

describe('softmax', () => {
  it('sums to one and is stable for large logits', () => {
    const p = softmax([1000, 1001, 1002]);
    expect(p.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    expect(p[2]).toBeGreaterThan(p[1]!);
    expect(Number.isFinite(p[0])).toBe(true);
  });
});

describe('topK', () => {
  it('ranks by score with labels and their names, ties by index', () => {
    const ranked = topK([0.1, 0.6, 0.3, 0.6], { 0: 'a', 1: 'b', 2: 'c', 3: 'd' }, 3, [{}, { displayName: 'Bee' }, {}, { localizedNames: { hi: 'डी' } }]);
    expect(ranked.map((p) => p.label)).toEqual(['b', 'd', 'c']);
    expect(ranked.map((p) => [p.displayName, p.localizedNames])).toEqual([['Bee', undefined], [undefined, { hi: 'डी' }], [undefined, undefined]]);
  });
  it('reads the names of any label from a config, Object.prototype\'s member names included (attack case 11)', () => {
    const config = { id2label: { 0: 'constructor', 1: 'toString', 2: '__proto__', 3: 'hasOwnProperty' }, lantern: { display_names: { toString: 'To string' }, localized_display_names: { hi: { constructor: 'निर्माता' }, fr: { toString: '' } } } };
    const names = labelNamesOf(RuntimeConfigSchema.parse(config), labelsOf(config));
    const ranked = topK([0.4, 0.3, 0.2, 0.1], config.id2label, 4, names);
    expect(ranked.map((p) => [p.label, p.displayName, p.localizedNames])).toEqual([
      ['constructor', undefined, { hi: 'निर्माता' }], ['toString', 'To string', undefined], ['__proto__', undefined, undefined], ['hasOwnProperty', undefined, undefined],
    ]);
    // What the worker posts to the page: a function anywhere in it would make postMessage throw.
    expect(() => structuredClone(ranked)).not.toThrow();
  });
  it('finds no names where a config gives none, and passes over what is not a name in a folder\'s unvalidated config', () => {
    expect(labelNamesOf({ id2label: { 0: 'a', 1: 'b' } }, ['a', 'b'])).toEqual([{}, {}]);
    expect(labelNamesOf({ lantern: { display_names: { a: 7, b: 'Bee' }, localized_display_names: { hi: 'x', fr: { a: ['A'] } } } }, ['a', 'b'])).toEqual([{}, { displayName: 'Bee' }]);
    expect(labelNamesOf({ lantern: { display_names: 'Bee', localized_display_names: null } }, ['a', 'b'])).toEqual([{}, {}]);
  });
  it('names unknown indices', () => {
    expect(topK([0, 1], { 0: 'a' }, 1)[0]!.label).toBe('LABEL_1');
  });
});

describe('rankRow', () => {
  it('leaves probabilities alone and softmaxes logits', () => {
    const probs = rankRow([0.2, 0.8], { scores: 'none', id2label: { 0: 'x', 1: 'y' }, k: 2 });
    expect(probs[0]!.score).toBe(0.8);
    const logits = rankRow([0, Math.log(3)], { scores: 'softmax', id2label: { 0: 'x', 1: 'y' }, k: 2 });
    expect(logits[0]!.score).toBeCloseTo(0.75, 10);
  });

  it('scores multi-label heads independently with a sigmoid', () => {
    const ranked = rankRow([Math.log(3), 0, -Math.log(3)], { scores: 'sigmoid', id2label: { 0: 'x', 1: 'y', 2: 'z' }, k: 3 });
    expect(ranked.map((p) => p.label)).toEqual(['x', 'y', 'z']);
    expect(ranked.map((p) => p.score)).toEqual([0.75, 0.5, 0.25].map((v) => expect.closeTo(v, 12)));
  });
});

describe('scoreFunction', () => {
  it('follows problem_type as transformers.js does, and a Lantern "probabilities" output first', () => {
    const id2label = { 0: 'a', 1: 'b' };
    expect(scoreFunction({ id2label })).toBe('softmax');
    expect(scoreFunction({ id2label, problem_type: 'single_label_classification' })).toBe('softmax');
    expect(scoreFunction({ id2label, problem_type: 'multi_label_classification' })).toBe('sigmoid');
    expect(scoreFunction(RuntimeConfigSchema.parse({ id2label, problem_type: 'multi_label_classification', lantern: { output: 'probabilities' } }))).toBe('none');
    expect(RuntimeConfigSchema.safeParse({ id2label, problem_type: 'regression' }).success).toBe(false);
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
