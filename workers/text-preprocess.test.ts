import { describe, expect, it } from 'vitest';
import { padBatch, TokenEncoder } from './text-preprocess.ts';
import { InputError, ModelLoadError } from '../src/runtime/errors.ts';

/** A tiny real WordPiece tokenizer.json, built inline so the test does not depend on a model. */
const vocab = { '[PAD]': 0, '[UNK]': 1, '[CLS]': 2, '[SEP]': 3, hello: 4, world: 5, win: 6, money: 7, '!': 8 };
const tokenizerJson = {
  version: '1.0',
  added_tokens: ['[PAD]', '[UNK]', '[CLS]', '[SEP]'].map((content, id) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })),
  normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
  pre_tokenizer: { type: 'BertPreTokenizer' },
  post_processor: {
    type: 'TemplateProcessing',
    single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
    pair: [],
    special_tokens: { '[CLS]': { id: '[CLS]', ids: [2], tokens: ['[CLS]'] }, '[SEP]': { id: '[SEP]', ids: [3], tokens: ['[SEP]'] } },
  },
  decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
  model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab },
};
const config = { unk_token: '[UNK]', pad_token: '[PAD]', model_max_length: 6 };

describe('TokenEncoder', () => {
  const encoder = new TokenEncoder(tokenizerJson, config);
  it('adds the template special tokens and maps unknown words', () => {
    expect(encoder.encode('Hello zebra world').ids).toEqual([2, 4, 1, 5, 3]);
  });
  it('truncates content but keeps [CLS] and [SEP]', () => {
    const e = encoder.encode('win money win money win money !');
    expect(e.ids).toEqual([2, 6, 7, 6, 7, 3]);
    expect(e.truncated).toBe(true);
  });
  it('rejects empty and whitespace-only text', () => {
    expect(() => encoder.encode('   \n')).toThrow(InputError);
  });
  it('replaces lone surrogates instead of failing', () => {
    expect(encoder.encode('hello \uD800 world').ids[1]).toBe(4);
  });
  // How fast is the benchmark's business (npm run bench); here, what comes out.
  it('says which share of the words it read are unknown to the vocabulary', () => {
    expect(encoder.encode('hello world').unknownShare).toBe(0);
    expect(encoder.encode('Hello zebra world').unknownShare).toBeCloseTo(1 / 3);
    expect(encoder.encode('नमस्ते दुनिया').unknownShare).toBe(1);
  });
  it('refuses a text of only characters the tokenizer drops (zero-width spaces, control characters) as empty', () => {
    for (const text of ['\u200b\u200b\u200b', '\u0001\u0002']) {
      expect(() => encoder.encode(text)).toThrow(expect.objectContaining({ details: { reason: 'empty-text' } }));
    }
  });
  it('pads with the end-of-sequence token when the config has no pad token, as transformers.js does', () => {
    expect(new TokenEncoder(tokenizerJson, { unk_token: '[UNK]', eos_token: '[SEP]' }).padId).toBe(3);
    expect(new TokenEncoder(tokenizerJson, { unk_token: '[UNK]', pad_token: '[PAD]', eos_token: '[SEP]' }).padId).toBe(0);
  });
  it('cuts a 1 MB text to the model length, keeps the special tokens and says it was cut', () => {
    const e = encoder.encode('win money '.repeat(100_000));
    expect(e.truncated).toBe(true);
    expect(e.ids).toEqual([2, 6, 7, 6, 7, 3]);
  });
});

describe('TokenEncoder with a tokenizer the library cannot run', () => {
  /** A WordLevel tokenizer with no unknown token: the library gives `null` for a word outside its vocabulary. */
  const wordLevel = (words: string[]) => ({
    version: '1.0', added_tokens: [], normalizer: { type: 'Lowercase' }, pre_tokenizer: { type: 'Whitespace' }, post_processor: null, decoder: null,
    model: { type: 'WordLevel', vocab: Object.fromEntries(words.map((word, id) => [word, id])) },
  });

  it('refuses at load a tokenizer that gives no ids for ordinary text (not pad tokens for every answer)', () => {
    expect(() => new TokenEncoder({ ...tokenizerJson, model: { type: 'Foo', vocab } }, {})).toThrow(/does not give token ids/);
    expect(() => new TokenEncoder(wordLevel(['zebra']), {})).toThrow(/does not give token ids/);
  });

  it('fails a text with a word its vocabulary cannot encode with a ModelLoadError, not a silent pad', () => {
    const encoder = new TokenEncoder(wordLevel(['hello', 'world', ',', 'this', 'is', 'a', 'test', '1', '.']), {});
    expect(encoder.encode('Hello world').ids).toEqual([0, 1]);
    expect(() => encoder.encode('hello zebra')).toThrow(ModelLoadError);
  });
});

describe('padBatch', () => {
  it('pads right with the pad id and masks padding', () => {
    const { ids, mask, length } = padBatch([{ ids: [2, 4, 3] }, { ids: [2, 3] }], 0);
    expect(length).toBe(3);
    expect(Array.from(ids)).toEqual([2n, 4n, 3n, 2n, 3n, 0n]);
    expect(Array.from(mask)).toEqual([1n, 1n, 1n, 1n, 1n, 0n]);
  });
  it('writes every value of reused arrays: stale ids, masks and high words do not leak into a batch', () => {
    const stale = (length: number) => new BigInt64Array(length).fill(-1n);
    const { ids, mask } = padBatch([{ ids: [2, 4, 3] }, { ids: [2, 3] }], 7, stale);
    expect(Array.from(ids)).toEqual([2n, 4n, 3n, 2n, 3n, 7n]);
    expect(Array.from(mask)).toEqual([1n, 1n, 1n, 1n, 1n, 0n]);
  });
});
