import { Tokenizer } from '@huggingface/tokenizers';
import { InputError, ModelLoadError } from '../src/runtime/errors.ts';
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
  /** Of the text's tokens the model reads, the share that are its unknown token (words outside its vocabulary). */
  unknownShare: number;
}

/** HF writes huge sentinels (1e30) for "no limit"; no classifier here needs more than this. */
const MAX_SEQUENCE = 4096;
/** Characters kept before tokenising: far more than max_length tokens ever need, and it keeps a 1 MB paste fast. */
const CHARS_PER_TOKEN_BOUND = 64;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Words, punctuation and a digit: what any text classifier's tokenizer must be able to encode. */
const PROBE_TEXT = 'Hello world, this is a test 1.';

/**
 * Token ids are non-negative integers. A tokenizer the library cannot run (a model type it does
 * not know, a vocabulary with no unknown token for a word outside it) gives `null` instead, which
 * padding would silently turn into pad tokens: every answer would be about an empty text.
 */
function hasOnlyIds(ids: readonly unknown[]): boolean {
  return ids.every((id) => Number.isInteger(id) && (id as number) >= 0);
}

export class TokenEncoder {
  readonly maxLength: number;
  readonly padId: number;
  private readonly tokenizer: Tokenizer;
  /** Same ids as the library, faster, for BERT WordPiece tokenizers (undefined for others). */
  private readonly fast?: FastWordPiece;
  private readonly prefix: number[];
  private readonly suffix: number[];
  /** The vocabulary's unknown token, when it has one. */
  private readonly unknownId?: number;

  constructor(tokenizerJson: object, tokenizerConfig: TokenizerConfig, maxLength?: number) {
    this.tokenizer = new Tokenizer(tokenizerJson, tokenizerConfig);
    const configured = maxLength ?? tokenizerConfig.model_max_length ?? tokenizerConfig.max_length ?? 512;
    this.maxLength = Math.min(configured, MAX_SEQUENCE);
    // As transformers.js: the pad token, else the end-of-sequence token.
    const pad = tokenizerConfig.pad_token ?? tokenizerConfig.eos_token;
    this.padId = (pad !== undefined ? this.tokenizer.token_to_id(pad) : undefined) ?? 0;
    const unknown = tokenizerConfig.unk_token ?? (tokenizerJson as { model?: { unk_token?: unknown } }).model?.unk_token;
    const unknownId = typeof unknown === 'string' ? this.tokenizer.token_to_id(unknown) : undefined;
    if (unknownId !== undefined) this.unknownId = unknownId;
    const probed = this.tokenizer.encode(PROBE_TEXT, { add_special_tokens: true }).ids;
    if (probed.length === 0 || !hasOnlyIds(probed)) throw new Error(`it does not give token ids (non-negative integers) for the text "${PROBE_TEXT}": a tokenizer kind the library does not support, or a vocabulary without an unknown token`);
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
    const { ids } = this.tokenizer.encode(text.replace(LONE_SURROGATE, '\uFFFD'), { add_special_tokens: false });
    if (!hasOnlyIds(ids)) throw new ModelLoadError('The model\'s tokenizer has no id for part of this text (tokenizer.json has no unknown token): the model cannot read it.', { file: 'tokenizer.json' });
    return ids;
  }

  encode(text: string): EncodedText {
    if (text.trim().length === 0) throw new InputError('The text is empty: type or paste something to classify.', { reason: 'empty-text' });
    const budget = this.maxLength - this.prefix.length - this.suffix.length;
    const charLimit = this.maxLength * CHARS_PER_TOKEN_BOUND;
    const cut = text.length > charLimit;
    const kept = cut ? text.slice(0, charLimit) : text;
    // The fast path stops one token past the budget: enough to know the text was cut.
    const content = this.fast ? this.fast.encode(kept, budget) : this.content(kept);
    // Only characters the tokenizer drops (zero-width spaces, control characters): the model
    // would classify its bare special tokens, and answer with confidence about nothing.
    if (content.length === 0) throw new InputError('The text has nothing this model can read.', { reason: 'empty-text' });
    const read = content.slice(0, budget);
    let unknown = 0;
    for (const id of read) if (id === this.unknownId) unknown++;
    return {
      ids: [...this.prefix, ...read, ...this.suffix],
      truncated: cut || content.length > budget,
      unknownShare: unknown / read.length,
    };
  }
}

/** Index of an int64's low 32-bit word within its pair of Int32 words (0 on little-endian hosts). */
const LOW_WORD = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1 ? 0 : 1;

/** The int64 matrices of a batch: token ids and attention mask, [batch, length]. */
export interface PaddedBatch {
  ids: BigInt64Array;
  mask: BigInt64Array;
  length: number;
}

/**
 * Stacks encodings into [batch, longest] id and mask matrices, padded on the right, in arrays
 * from `allocate` (stale contents are fine: every value is written). Token ids are small
 * non-negative integers, so each int64 is written as two 32-bit words through an Int32Array
 * view of the same memory: no BigInt per token.
 */
export function padBatch(encodings: readonly Pick<EncodedText, 'ids'>[], padId: number, allocate = (length: number) => new BigInt64Array(length)): PaddedBatch {
  const length = Math.max(1, ...encodings.map((e) => e.ids.length));
  const ids = allocate(encodings.length * length);
  const mask = allocate(encodings.length * length);
  const idWords = new Int32Array(ids.buffer, ids.byteOffset, ids.length * 2);
  const maskWords = new Int32Array(mask.buffer, mask.byteOffset, mask.length * 2);
  const write = (words: Int32Array, at: number, value: number) => {
    words[at + LOW_WORD] = value;
    words[at + 1 - LOW_WORD] = 0;
  };
  for (let row = 0; row < encodings.length; row++) {
    const tokens = encodings[row]!.ids;
    for (let col = 0, at = row * length * 2; col < length; col++, at += 2) {
      const real = col < tokens.length;
      write(idWords, at, real ? tokens[col]! : padId);
      write(maskWords, at, real ? 1 : 0);
    }
  }
  return { ids, mask, length };
}
