import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { describe, expect, it } from 'vitest';
import { loadCorpus, mulberry32 } from '../models/spam-filter/recipe/corpus.mjs';
import { mailToText, truncateIds, MAX_LENGTH } from '../models/spam-filter/recipe/mail-text.mjs';
import { TokenEncoder } from './text-preprocess.ts';
import { FastWordPiece } from './wordpiece-fast.ts';

/**
 * The fast path must give exactly the library's ids: over every SpamAssassin mail (raw, with
 * headers, and as the model sees it), the transformers.js parity texts, hand-picked Unicode
 * traps, and seeded random text mixing ASCII with the characters the library treats specially.
 */
const MODEL = join(import.meta.dirname, '../models/spam-filter');
const tokenizerJson = JSON.parse(readFileSync(join(MODEL, 'tokenizer.json'), 'utf8')) as {
  model: { vocab: Record<string, number> };
  normalizer: Record<string, unknown>;
};
const tokenizerConfig = JSON.parse(readFileSync(join(MODEL, 'tokenizer_config.json'), 'utf8')) as Record<string, unknown>;
const library = new Tokenizer(tokenizerJson, tokenizerConfig);
const libraryIds = (text: string) => library.encode(text, { add_special_tokens: false }).ids;

function fastPath(json: object = tokenizerJson) {
  const calls: string[] = [];
  const fast = FastWordPiece.from(json, tokenizerConfig, (text) => {
    calls.push(text);
    return libraryIds(text);
  });
  if (!fast) throw new Error('the fast path does not cover this tokenizer');
  return { fast, calls };
}

const TRAPS = [
  'FREE money, café!', 'naïve café — résumé 日本語 emoji 🎉', 'Congratulations! You have WON a free cruise!!!',
  'ΑΣ ΑΣ.a σΣ ὈΔΥΣΣΕΎΣ', 'İstanbul KELVIN \u212A ß ﬁne ǅemal', 'e\u0301 x\u0301y \u0301lead', 'a\u00a0b a\u200bb a\ufeffb a\u2028b a\u3000b',
  'tab\tnl\ncr\rvt\vff\fnul\u0000one\u0001del\u007f end', 'ctrl\u0085nel \u0080c1', 'lone \ud800 high \udc00 low pair \ud83c\udf89',
  'literal [SEP] and [CLS][PAD] and [unk]', '##start ## mid##dle', `${'x'.repeat(100)} ${'y'.repeat(101)} ${'ab'.repeat(60)}`,
  'ALLCAPS MiXeD 12345 3.14 1,000 $99.99 http://example.com/a?b=c&d=e#f user@example.org', '', '   ', '\u0000\u0001',
  'don’t “quotes” ‘single’ – dash … ellipsis • bullet', 'ﬀ ｆｕｌｌｗｉｄｔｈ ＡＢＣ １２３', 'Ⅻ ½ ² ℃ № ™ ©', 'عربى עברית हिन्दी ไทย 한국어',
];

const ALPHABET = [
  ...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', ...' \t\n\r', ...'!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~',
  '\v', '\f', '\u0000', '\u0001', '\u007f', 'é', 'É', '\u0301', 'Σ', 'ς', 'İ', 'ß', 'ﬁ', '日', '本', '🎉', '\u00a0', '\u200b', '\ufeff',
  '\u2028', '\u3000', '’', '—', '\ud800', '\udc00', '\u0085', '\u212a', '[SEP]', '##', '½',
];

/** Random text: vocabulary words (some capitalised, some glued) and random characters. */
function randomTexts(count: number, seed: number): string[] {
  const rand = mulberry32(seed);
  const words = Object.keys(tokenizerJson.model.vocab);
  const pick = <T>(list: readonly T[]) => list[Math.floor(rand() * list.length)]!;
  return Array.from({ length: count }, () => {
    let text = '';
    const parts = 1 + Math.floor(rand() * 40);
    for (let i = 0; i < parts; i++) {
      const r = rand();
      if (r < 0.45) text += (rand() < 0.2 ? pick(words).toUpperCase() : pick(words).replace(/^##/, '')) + (rand() < 0.7 ? ' ' : '');
      else text += pick(ALPHABET);
    }
    return text;
  });
}

describe('FastWordPiece', () => {
  it('gives the library\'s ids on all 6,046 SpamAssassin mails, within budget and to the end, without asking the library for ASCII', () => {
    const { fast, calls } = fastPath();
    const encoder = new TokenEncoder(tokenizerJson, tokenizerConfig);
    const corpus = loadCorpus();
    expect(corpus).toHaveLength(6046);
    let asciiOnly = 0;
    for (const [index, mail] of corpus.entries()) {
      // The model's text, as long as TokenEncoder keeps it; every tenth mail also raw, headers included.
      const texts = [mailToText(mail.text), ...(index % 10 === 0 ? [mail.text] : [])].map((t) => t.slice(0, MAX_LENGTH * 64));
      const fulls = texts.map(libraryIds);
      for (const [i, text] of texts.entries()) {
        calls.length = 0;
        const full = fulls[i]!;
        expect(fast.encode(text, Infinity), mail.id).toEqual(full);
        expect(fast.encode(text, MAX_LENGTH - 2), mail.id).toEqual(full.slice(0, MAX_LENGTH - 1));
        if (/^[\x00-\x7f]*$/.test(text) && !/\[(PAD|UNK|CLS|SEP)\]/.test(text)) {
          asciiOnly++;
          expect(calls, mail.id).toEqual([]);
        }
      }
      if (texts[0]!.trim().length === 0) continue;
      const ours = encoder.encode(texts[0]!);
      const withSpecial = [2, ...fulls[0]!, 3];
      expect(ours.ids, mail.id).toEqual(truncateIds(withSpecial, MAX_LENGTH));
      expect(ours.truncated, mail.id).toBe(withSpecial.length > MAX_LENGTH);
    }
    // The fast path really is the common case.
    expect(asciiOnly).toBeGreaterThan(corpus.length / 2);
  }, 120_000);

  it('gives the library\'s ids on Unicode traps and on 5,000 random texts', () => {
    const { fast } = fastPath();
    for (const text of [...TRAPS, ...randomTexts(5000, 14)]) {
      expect(fast.encode(text, Infinity), JSON.stringify(text)).toEqual(libraryIds(text));
    }
  });

  it('splits words into continuing pieces as the library does', () => {
    // The spam filter's vocabulary has no "##" pieces (every unknown word is [UNK]); this one has
    // a continuing piece for each single character and for the first 2,000 words.
    const vocab = { ...tokenizerJson.model.vocab };
    const pieces = [...'abcdefghijklmnopqrstuvwxyz0123456789', ...Object.keys(vocab).slice(0, 2000)];
    const firstPiece = Math.max(...Object.values(vocab)) + 1;
    let next = firstPiece;
    for (const piece of pieces) vocab[`##${piece}`] ??= next++;
    const subword = { ...tokenizerJson, model: { ...tokenizerJson.model, vocab } };
    const subwordLibrary = new Tokenizer(subword, tokenizerConfig);
    const ids = (text: string) => subwordLibrary.encode(text, { add_special_tokens: false }).ids;
    const fast = FastWordPiece.from(subword, tokenizerConfig, ids)!;
    const mails = loadCorpus().slice(0, 600).map((mail) => mailToText(mail.text).slice(0, MAX_LENGTH * 64));
    let split = 0;
    for (const text of [...TRAPS, ...mails, ...randomTexts(1000, 21)]) {
      const expected = ids(text);
      expect(fast.encode(text, Infinity), JSON.stringify(text.slice(0, 80))).toEqual(expected);
      split += expected.filter((id) => id >= firstPiece).length;
    }
    // The continuing pieces really were used.
    expect(split).toBeGreaterThan(1000);
  });

  it('handles a case-preserving tokenizer', () => {
    const cased = { ...tokenizerJson, normalizer: { ...tokenizerJson.normalizer, lowercase: false } };
    const casedLibrary = new Tokenizer(cased, tokenizerConfig);
    const fast = FastWordPiece.from(cased, tokenizerConfig, (t) => casedLibrary.encode(t, { add_special_tokens: false }).ids)!;
    for (const text of [...TRAPS, ...randomTexts(500, 7)]) {
      expect(fast.encode(text, Infinity), JSON.stringify(text)).toEqual(casedLibrary.encode(text, { add_special_tokens: false }).ids);
    }
  });

  it('declines tokenizers it does not cover', () => {
    const none = () => [];
    expect(FastWordPiece.from({ ...tokenizerJson, normalizer: { type: 'Sequence', normalizers: [] } }, tokenizerConfig, none)).toBeUndefined();
    expect(FastWordPiece.from({ ...tokenizerJson, model: { type: 'WordLevel', vocab: {}, unk_token: '[UNK]' } }, tokenizerConfig, none)).toBeUndefined();
    expect(FastWordPiece.from(tokenizerJson, { ...tokenizerConfig, do_lowercase_and_remove_accent: true }, none)).toBeUndefined();
  });
});
