import { Tokenizer } from '@huggingface/tokenizers';
import { InputError } from '../src/runtime/errors.ts';
import type { TokenizerConfig } from '../src/runtime/model-config.ts';
import { FastWordPiece } from './wordpiece-fast.ts';

/**
 * Tokenisation with the truncation and padding the tokenizer library leaves to us.
 * Truncation keeps the first tokens of the text and always keeps the template's special
 * tokens (transformers.js' `truncation: true` drops the final [SEP]; we do not).
 */
export interface EncodedText {
  ids: number[];
  /** The text was longer than the model accepts and was cut. */
  truncated: boolean;
}

/** HF writes huge sentinels (1e30) for "no limit"; no classifier here needs more than this. */
const MAX_SEQUENCE = 4096;
/** Characters kept before tokenising: far more than max_length tokens ever need, and it keeps a 1 MB paste fast. */
const CHARS_PER_TOKEN_BOUND = 64;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export class TokenEncoder {
  readonly maxLength: number;
  readonly padId: number;
  private readonly tokenizer: Tokenizer;
  /** Same ids as the library, faster, for BERT WordPiece tokenizers (undefined for others). */
  private readonly fast?: FastWordPiece;
  private readonly prefix: number[];
  private readonly suffix: number[];

  constructor(tokenizerJson: object, tokenizerConfig: TokenizerConfig, maxLength?: number) {
    this.tokenizer = new Tokenizer(tokenizerJson, tokenizerConfig);
    const configured = maxLength ?? tokenizerConfig.model_max_length ?? tokenizerConfig.max_length ?? 512;
    this.maxLength = Math.min(configured, MAX_SEQUENCE);
    const pad = tokenizerConfig.pad_token;
    this.padId = (pad !== undefined ? this.tokenizer.token_to_id(pad) : undefined) ?? 0;
    // Learn where the template puts its special tokens by encoding a probe both ways.
    const probe = 'a';
    const plain = this.tokenizer.encode(probe, { add_special_tokens: false }).ids;
    const full = this.tokenizer.encode(probe, { add_special_tokens: true }).ids;
    const start = plain.length ? full.indexOf(plain[0]!) : full.length;
    this.prefix = full.slice(0, Math.max(0, start));
    this.suffix = full.slice(Math.max(0, start) + plain.length);
    this.fast = FastWordPiece.from(tokenizerJson, tokenizerConfig, (text) => this.content(text));
  }

  private content(text: string): number[] {
    return this.tokenizer.encode(text.replace(LONE_SURROGATE, '\uFFFD'), { add_special_tokens: false }).ids;
  }

  encode(text: string): EncodedText {
    if (text.trim().length === 0) throw new InputError('The text is empty: type or paste something to classify.', { reason: 'empty-text' });
    const budget = this.maxLength - this.prefix.length - this.suffix.length;
    const charLimit = this.maxLength * CHARS_PER_TOKEN_BOUND;
    const cut = text.length > charLimit;
    const kept = cut ? text.slice(0, charLimit) : text;
    // The fast path stops one token past the budget: enough to know the text was cut.
    const content = this.fast ? this.fast.encode(kept, budget) : this.content(kept);
    return {
      ids: [...this.prefix, ...content.slice(0, budget), ...this.suffix],
      truncated: cut || content.length > budget,
    };
  }
}

/** Index of an int64's low 32-bit word within its pair of Int32 words (0 on little-endian hosts). */
const LOW_WORD = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1 ? 0 : 1;

/**
 * Stacks encodings into [batch, longest] id and mask matrices, padded on the right. Token ids
 * are small non-negative integers, so each int64 is written as its low 32-bit word through an
 * Int32Array view of the same memory (the high word stays 0): no BigInt per token.
 */
export function padBatch(encodings: readonly EncodedText[], padId: number): { ids: BigInt64Array; mask: BigInt64Array; length: number } {
  const length = Math.max(1, ...encodings.map((e) => e.ids.length));
  const ids = new BigInt64Array(encodings.length * length);
  const mask = new BigInt64Array(encodings.length * length);
  const idWords = new Int32Array(ids.buffer);
  const maskWords = new Int32Array(mask.buffer);
  encodings.forEach((e, row) => {
    const tokens = e.ids;
    for (let col = 0; col < length; col++) {
      const at = (row * length + col) * 2 + LOW_WORD;
      if (col < tokens.length) {
        idWords[at] = tokens[col]!;
        maskWords[at] = 1;
      } else {
        idWords[at] = padId;
      }
    }
  });
  return { ids, mask, length };
}
