import { transferHandlers, type TransferHandler } from 'comlink';
import { deserializeError, serializeError, type SerializedError } from './errors.ts';

/**
 * Comlink's own 'throw' handler keeps only name/message/stack, so an `InputError` thrown in
 * the worker arrives on the page as a plain Error. We replace it (same key, so comlink
 * still picks it for thrown values) with one that keeps the class, code and details.
 * Both sides must call this before the first message.
 *
 * Comlink marks thrown values with a private symbol; we recognise it by its description.
 */
function isThrownMarker(value: unknown): value is { value: unknown } {
  if (typeof value !== 'object' || value === null) return false;
  return Object.getOwnPropertySymbols(value).some((s) => s.description === 'Comlink.thrown');
}

type Wire = { isError: true; value: SerializedError } | { isError: false; value: unknown };

const throwHandler: TransferHandler<{ value: unknown }, Wire> = {
  canHandle: isThrownMarker,
  serialize({ value }) {
    if (value instanceof Error) return [{ isError: true, value: serializeError(value) }, []];
    return [{ isError: false, value }, []];
  },
  deserialize(wire) {
    if (wire.isError) throw deserializeError(wire.value);
    throw wire.value;
  },
};

let installed = false;
export function installErrorTransfer(): void {
  if (installed) return;
  transferHandlers.set('throw', throwHandler as TransferHandler<unknown, unknown>);
  installed = true;
}
