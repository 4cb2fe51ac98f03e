import { ortApi, type ort } from '../ort.ts';
import { InputError, ModelLoadError } from '../../src/runtime/errors.ts';
import type { Note } from '../../src/runtime/notes.ts';
import type { ClassifyInput } from '../../src/runtime/protocol.ts';
import { ArrayPool } from '../buffers.ts';
import { padBatch, type EncodedText, type TokenEncoder } from '../text-preprocess.ts';
import type { InputInfo } from './model-io.ts';
import { feedArrays, type Prepared, type TaskAdapter } from './task.ts';

type Role = 'ids' | 'mask' | 'typeIds';

/** The names hub exports (and transformers.js) use for a text classifier's inputs. */
const ROLES: Record<string, Role> = { input_ids: 'ids', attention_mask: 'mask', token_type_ids: 'typeIds' };

/**
 * From this share of unknown tokens an answer carries a note: a model that knows half the words
 * or fewer (a text in a language it never read) answers about what it could read, confidently.
 */
const UNKNOWN_WORDS_NOTE_AT = 0.5;

/** Text classification: tokenise each input, pad the batch, feed ids / mask / type ids by role. */
export class TextTask implements TaskAdapter<EncodedText> {
  readonly kind = 'text' as const;
  private readonly roles: [string, Role][];
  /**
   * The int64 feeds of finished batches, refilled by the next (see buffers.ts for why): a new
   * 64 KB array per feed per batch was a fifth of the worker's time at 64 mails in flight. Up to
   * three feeds (ids, mask, type ids) for each of a worker's two batches in flight.
   */
  private readonly int64s = new ArrayPool(BigInt64Array, 6);

  constructor(private readonly encoder: TokenEncoder, inputs: InputInfo[]) {
    this.roles = inputRoles(inputs);
  }

  async prepare(input: ClassifyInput): Promise<Prepared<EncodedText>> {
    if (input.kind !== 'text') throw new InputError('This model classifies text, not images.', { reason: 'wants-text' });
    if (typeof input.text !== 'string') throw new InputError('The text is not a string.', { reason: 'not-text' });
    const encoded = this.encoder.encode(input.text);
    const notes: Note[] = encoded.truncated ? [{ kind: 'truncated', maxTokens: this.encoder.maxLength }] : [];
    if (encoded.unknownShare >= UNKNOWN_WORDS_NOTE_AT) notes.push({ kind: 'unknown-words', percent: Math.round(encoded.unknownShare * 100) });
    return { item: encoded, notes };
  }

  feeds(group: EncodedText[]): Record<string, ort.Tensor> {
    const { ids, mask, length } = padBatch(group, this.encoder.padId, (n) => this.int64s.take(n));
    const dims = [group.length, length];
    const values: Record<Role, () => BigInt64Array> = { ids: () => ids, mask: () => mask, typeIds: () => this.int64s.take(ids.length).fill(0n) };
    return Object.fromEntries(this.roles.map(([name, role]) => [name, new (ortApi().Tensor)('int64', values[role](), dims)]));
  }

  recycle(_items: EncodedText[], feeds: Record<string, ort.Tensor>): void {
    this.int64s.give(feedArrays(feeds));
  }

  /** The token ids (padding and the mask follow from them). */
  cacheBytes(item: EncodedText): Uint32Array {
    return Uint32Array.from(item.ids);
  }
}

/** Each input's role by its hub name; a single input of another name takes the token ids. */
function inputRoles(inputs: InputInfo[]): [string, Role][] {
  if (inputs.length === 1) return [[inputs[0]!.name, ROLES[inputs[0]!.name] ?? 'ids']];
  const unknown = inputs.find((i) => !ROLES[i.name]);
  if (unknown) throw new ModelLoadError(`The model's input "${unknown.name}" is none of ${Object.keys(ROLES).join(', ')}.`);
  if (!inputs.some((i) => ROLES[i.name] === 'ids')) throw new ModelLoadError('The model has no input_ids input.');
  return inputs.map((i) => [i.name, ROLES[i.name]!]);
}
