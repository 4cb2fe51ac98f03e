import { Tokenizer } from '@huggingface/tokenizers';
import { InputError } from './errors.ts';
import type { TokenizerConfig } from './model-config.ts';

/**
 * Tokenisation with the truncation and padding the tokenizer library leaves to us.
 * Truncation keeps the first tokens of the text and always keeps the template's special
 * tokens (transformers.js' `truncation: true` drops the final [SEP]; we do not).
 */
export interface EncodedText {
  ids: number[];
  /** The text was longer than the model accepts and was cut. */
  truncated: boolean;
  /** Content tokens before truncation (lower bound when the text was pre-cut by characters). */
  tokenCount: number;
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
  }

  encode(text: string): EncodedText {
    const clean = text.replace(LONE_SURROGATE, '\uFFFD');
    if (clean.trim().length === 0) throw new InputError('The text is empty: type or paste something to classify.', { reason: 'empty-text' });
    const budget = this.maxLength - this.prefix.length - this.suffix.length;
    const charLimit = this.maxLength * CHARS_PER_TOKEN_BOUND;
    const cut = clean.length > charLimit;
    const content = this.tokenizer.encode(cut ? clean.slice(0, charLimit) : clean, { add_special_tokens: false }).ids;
    const truncated = cut || content.length > budget;
    return {
      ids: [...this.prefix, ...content.slice(0, budget), ...this.suffix],
      truncated,
      tokenCount: content.length,
    };
  }
}

/** Stacks encodings into [batch, longest] id and mask matrices, padded on the right. */
export function padBatch(encodings: readonly EncodedText[], padId: number): { ids: BigInt64Array; mask: BigInt64Array; length: number } {
  const length = Math.max(1, ...encodings.map((e) => e.ids.length));
  const ids = new BigInt64Array(encodings.length * length).fill(BigInt(padId));
  const mask = new BigInt64Array(encodings.length * length);
  encodings.forEach((e, row) => {
    e.ids.forEach((id, col) => {
      ids[row * length + col] = BigInt(id);
      mask[row * length + col] = 1n;
    });
  });
  return { ids, mask, length };
}
