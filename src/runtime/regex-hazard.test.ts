import { describe, expect, it } from 'vitest';
import { regexHazard, tokenizerRegexProblem } from './regex-hazard.ts';

describe('regexHazard', () => {
  it.each([
    // GPT-2 / RoBERTa, cl100k (GPT-4), Llama 3 / Qwen 2 and SentencePiece-style normalizers.
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+",
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
    ' {2,}',
    '(\\d)',
    '(?:ab)?c',
    '[(|+)]+',
    '\\(a|b\\)+',
    '(ab){2}',
  ])('accepts %j', (pattern) => {
    expect(regexHazard(pattern)).toBeUndefined();
  });

  it.each([
    '(?:[a-z]|[a-z]|[a-z]|[a-z])+!',
    '(a+)+$',
    '(a*)*b',
    '(\\w+\\s?)*$',
    '(a|aa){2,}',
    '((ab)*c)+',
    '(x?){3,9}',
  ])('refuses %j', (pattern) => {
    expect(regexHazard(pattern)).toMatch(/is repeated and can match the same text in more than one way/);
  });
});

describe('tokenizerRegexProblem', () => {
  it('finds a hazard in a nested normalizer, skips the vocabulary, and refuses a file nested without end', () => {
    const normalizer = { type: 'Sequence', normalizers: [{ type: 'Lowercase' }, { type: 'Replace', pattern: { Regex: '(a|a)+!' }, content: '' }] };
    expect(tokenizerRegexProblem({ normalizer, model: { vocab: { '(a+)+': 1 } } })).toMatch(/^its pattern "\(a\|a\)\+!": the group ending at character 5/);
    expect(tokenizerRegexProblem({ pre_tokenizer: { type: 'Split', pattern: { Regex: ' {2,}' } }, model: { vocab: { Regex: '(a+)+' } } })).toBeUndefined();
    let deep: object = {};
    for (let i = 0; i < 100; i++) deep = { next: deep };
    expect(tokenizerRegexProblem(deep)).toBe('it is nested more than 64 levels deep');
  });
});
