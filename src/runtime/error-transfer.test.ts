import { describe, expect, it } from 'vitest';
import { expose, wrap } from 'comlink';
import { MessageChannel } from 'node:worker_threads';
import { installErrorTransfer } from './error-transfer.ts';
import { BusyError, INPUT_REASONS, InputError, IntegrityError, LanternError, ModelLoadError, type InputReason } from './errors.ts';

installErrorTransfer();

const api = {
  async failInput(): Promise<void> {
    throw new InputError('That file is not an image.', { reason: 'not-an-image', type: 'text/plain' });
  },
  async failIntegrity(): Promise<void> {
    throw new IntegrityError('Chunk 3 does not match its hash.', { chunk: 3 });
  },
  async failPlain(): Promise<void> {
    throw new TypeError('boom');
  },
  async failWithCause(): Promise<void> {
    throw new ModelLoadError('The session could not be created.', { key: 'm@1' }, { cause: new RangeError('ORT: protobuf parsing failed', { cause: new InputError('inner', { reason: 'corrupt' }) }) });
  },
};

function connect() {
  const { port1, port2 } = new MessageChannel();
  // Node's MessagePort is an EventTarget-compatible endpoint for comlink.
  expose(api, port1 as unknown as Parameters<typeof expose>[1]);
  const remote = wrap<typeof api>(port2 as unknown as Parameters<typeof wrap>[0]);
  return { remote, close: () => { port1.close(); port2.close(); } };
}

describe('errors across the comlink boundary', () => {
  it('keep their class, code and details', async () => {
    const { remote, close } = connect();
    const error = await remote.failInput().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputError);
    expect(error).toBeInstanceOf(LanternError);
    expect((error as InputError).code).toBe('INPUT');
    expect((error as InputError).details).toEqual({ reason: 'not-an-image', type: 'text/plain' });
    // Typed as one of INPUT_REASONS (tsc checks this line): an app can switch over it exhaustively.
    const reason: InputReason = (error as InputError).details.reason;
    expect(INPUT_REASONS).toContain(reason);
    const integrity = await remote.failIntegrity().catch((e: unknown) => e);
    expect(integrity).toBeInstanceOf(IntegrityError);
    expect((integrity as IntegrityError).details.chunk).toBe(3);
    close();
  });

  it('turn unknown errors into LanternErrors (code INTERNAL) whose cause is the original, by name and message', async () => {
    const { remote, close } = connect();
    const error = await remote.failPlain().catch((e: unknown) => e) as LanternError;
    expect(error).toBeInstanceOf(LanternError);
    expect(error.code).toBe('INTERNAL');
    expect(error.message).toBe('TypeError: boom');
    expect(error.cause).toBeInstanceOf(Error);
    expect(error.cause).toMatchObject({ name: 'TypeError', message: 'boom' });
    close();
  });

  it('keep their causes, each with its own class', async () => {
    const { remote, close } = connect();
    const error = await remote.failWithCause().catch((e: unknown) => e) as ModelLoadError;
    expect(error).toBeInstanceOf(ModelLoadError);
    expect(error.details).toEqual({ key: 'm@1' });
    const cause = error.cause as Error;
    expect(cause).not.toBeInstanceOf(LanternError);
    expect(cause).toMatchObject({ name: 'RangeError', message: 'ORT: protobuf parsing failed' });
    expect(cause.cause).toBeInstanceOf(InputError);
    expect((cause.cause as InputError).details).toEqual({ reason: 'corrupt' });
    close();
  });

  it('names each class after itself', () => {
    expect(new BusyError('x').name).toBe('BusyError');
    expect(new BusyError('x').code).toBe('BUSY');
  });
});
