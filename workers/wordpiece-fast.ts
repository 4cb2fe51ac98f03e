import { z } from 'zod/mini';

/**
 * A fast path for BERT WordPiece tokenisation that gives exactly the ids @huggingface/tokenizers
 * gives (proven over the whole SpamAssassin corpus and adversarial text in the tests).
 *
 * Why: the library's BertNormalizer runs two regular expressions per character and builds the
 * text several times over; on a mail that costs more than the model itself. Here ASCII text is
 * classified with a 128-entry table in one pass, words go straight to a vocabulary lookup, and
 * the pass stops as soon as the token budget is full.
 *
 * What it leaves to the library (`fallback`): any whitespace-delimited run containing a
 * non-ASCII character (Unicode lowercasing, accents, CJK spacing, Unicode punctuation). Running
 * the library on such a run alone gives the same ids as on the whole text, because nothing the
 * library does looks across ASCII whitespace: the normaliser maps it to a space, lowercasing's
 * only contextual rule (final sigma) and NFD reordering both stop at a space, and the
 * pre-tokeniser splits there. Texts containing an added token's literal text ("[SEP]"), and
 * tokenizer.json files of any other shape, go to the library whole (`from` returns undefined).
 */

const WordPieceJson = z.looseObject({
  normalizer: z.looseObject({ type: z.literal('BertNormalizer'), clean_text: z.literal(true), lowercase: z.boolean() }),
  pre_tokenizer: z.looseObject({ type: z.literal('BertPreTokenizer') }),
  model: z.looseObject({
    type: z.literal('WordPiece'),
    vocab: z.record(z.string(), z.int().check(z.nonnegative())),
    unk_token: z.string(),
    continuing_subword_prefix: z._default(z.string(), '##'),
    max_input_chars_per_word: z._default(z.int().check(z.positive()), 100),
    fuse_unk: z.optional(z.literal(false)),
  }),
  added_tokens: z._default(z.array(z.looseObject({ id: z.int().check(z.nonnegative()), content: z.string(), special: z.optional(z.boolean()), normalized: z.optional(z.boolean()) })), []),
});

/** Options of the library's Tokenizer that change tokenisation before the normaliser runs. */
const PlainConfig = z.looseObject({ remove_space: z.optional(z.undefined()), do_lowercase_and_remove_accent: z.optional(z.union([z.literal(false), z.undefined()])) });

const enum Char {
  /** Letters and digits: part of a word. */
  Word,
  /** Tab, LF, CR and space: ends a word and a run. */
  Space,
  /** ASCII punctuation and symbols: a token of its own. */
  Punct,
  /** Other control characters: the normaliser deletes them (a word continues across). */
  Drop,
}

const ASCII = new Uint8Array(128).map((_, c) => {
  if (c === 9 || c === 10 || c === 13 || c === 32) return Char.Space;
  if (c < 32 || c === 127) return Char.Drop;
  if ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)) return Char.Word;
  return Char.Punct;
});

/** Words that are not whole vocabulary entries, split once and remembered (mail repeats them). */
const SPLIT_CACHE_LIMIT = 20_000;

export class FastWordPiece {
  private readonly splitCache = new Map<string, readonly number[]>();

  private constructor(
    private readonly vocab: ReadonlyMap<string, number>,
    private readonly unkId: number,
    private readonly prefix: string,
    private readonly maxWordChars: number,
    private readonly lowercase: boolean,
    /** Literal texts that the library cuts out as added tokens before normalising. */
    private readonly addedTexts: readonly string[],
    /** The library, for content ids of text the fast path does not cover. */
    private readonly fallback: (text: string) => number[],
  ) {}

  /** A fast path for this tokenizer, or undefined when its shape is not the one covered here. */
  static from(tokenizerJson: unknown, tokenizerConfig: unknown, fallback: (text: string) => number[]): FastWordPiece | undefined {
    const json = WordPieceJson.safeParse(tokenizerJson);
    if (!json.success || !PlainConfig.safeParse(tokenizerConfig).success) return undefined;
    const { model, added_tokens: added, normalizer } = json.data;
    // Normalised added tokens are matched after normalisation: leave those tokenizers to the library.
    if (added.some((t) => t.normalized ?? !t.special)) return undefined;
    // The library's lookup: the vocabulary, with added tokens taking precedence.
    const vocab = new Map(Object.entries(model.vocab));
    for (const token of added) vocab.set(token.content, token.id);
    const unkId = vocab.get(model.unk_token);
    if (unkId === undefined) return undefined;
    const addedTexts = added.map((t) => t.content).filter((content) => content.length > 0);
    return new FastWordPiece(vocab, unkId, model.continuing_subword_prefix, model.max_input_chars_per_word, normalizer.lowercase, addedTexts, fallback);
  }

  /**
   * Content ids (no special tokens) of `text`, stopping once more than `budget` ids exist: the
   * caller learns it must truncate without the rest of the text being tokenised.
   */
  encode(text: string, budget: number): number[] {
    if (this.addedTexts.some((t) => text.includes(t))) return this.fallback(text).slice(0, budget + 1);
    const out: number[] = [];
    const n = text.length;
    let runStart = 0;
    let runOut = 0;
    let wordStart = -1;
    /** The word so far, when a dropped control character split it in the source text. */
    let pieces = '';
    let upper = false;
    const endWord = (end: number) => {
      if (wordStart < 0) return;
      const raw = pieces + text.slice(wordStart, end);
      this.word(upper && this.lowercase ? raw.toLowerCase() : raw, out);
      wordStart = -1;
      pieces = '';
      upper = false;
    };
    for (let i = 0; i < n && out.length <= budget; i++) {
      const c = text.charCodeAt(i);
      if (c >= 128) {
        // Hand the whole run (up to the next ASCII whitespace) to the library.
        let end = i + 1;
        while (end < n && ASCII[text.charCodeAt(end)] !== Char.Space) end++;
        out.length = runOut;
        wordStart = -1;
        pieces = '';
        upper = false;
        for (const id of this.fallback(text.slice(runStart, end))) out.push(id);
        i = end;
        runStart = end + 1;
        runOut = out.length;
        continue;
      }
      switch (ASCII[c] as Char) {
        case Char.Word:
          if (wordStart < 0) wordStart = i;
          if (c >= 65 && c <= 90) upper = true;
          break;
        case Char.Space:
          endWord(i);
          runStart = i + 1;
          runOut = out.length;
          break;
        case Char.Punct:
          endWord(i);
          out.push(this.vocab.get(text[i]!) ?? this.unkId);
          break;
        case Char.Drop:
          if (wordStart >= 0) {
            pieces += text.slice(wordStart, i);
            wordStart = i + 1;
          }
          break;
      }
    }
    if (out.length <= budget) endWord(n);
    return out.length > budget + 1 ? out.slice(0, budget + 1) : out;
  }

  /** WordPiece on one normalised word: greedy longest match, all-unknown if any piece is missing. */
  private word(word: string, out: number[]): void {
    // ASCII only here, so UTF-16 length is the library's character count.
    if (word.length > this.maxWordChars) {
      out.push(this.unkId);
      return;
    }
    const whole = this.vocab.get(word);
    if (whole !== undefined) {
      out.push(whole);
      return;
    }
    let ids = this.splitCache.get(word);
    if (!ids) {
      ids = this.split(word);
      if (this.splitCache.size >= SPLIT_CACHE_LIMIT) this.splitCache.clear();
      this.splitCache.set(word, ids);
    }
    for (const id of ids) out.push(id);
  }

  private split(word: string): number[] {
    const ids: number[] = [];
    let start = 0;
    while (start < word.length) {
      let end = word.length;
      let id: number | undefined;
      for (; end > start; end--) {
        id = this.vocab.get(start > 0 ? this.prefix + word.slice(start, end) : word.slice(start, end));
        if (id !== undefined) break;
      }
      if (id === undefined) return [this.unkId];
      ids.push(id);
      start = end;
    }
    return ids;
  }
}
