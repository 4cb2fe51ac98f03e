import { describe, expect, it } from 'vitest';
import {
  BusyError, CancelledError, DeviceLostError, InputError, IntegrityError, LanternError,
  ModelLoadError, ModelRunError, TimeoutError, ValidationError, WorkerCrashedError,
} from '../errors.ts';
import { fallbackTrigger, mayAnswerFor, PRIMARY_SHARE, primaryDeadline, sameLabels } from './fallback.ts';

describe('fallback triggers', () => {
  it.each([
    ['a load failure', new ModelLoadError('The model could not be loaded: bad protobuf'), 'MODEL_LOAD'],
    ['a graph that fails to run', new ModelRunError('The model failed to run: Got invalid dimensions for input: input_ids'), 'MODEL_RUN'],
    ['a model removed or rolled back with no previous version', new ModelLoadError('There is no installed model called "x".'), 'MODEL_LOAD'],
    ['a quarantine with no previous version', new IntegrityError('quarantined; reinstall', { fallback: null }), 'INTEGRITY'],
    ['a device loss the WASM retry did not fix', new DeviceLostError('The WebGPU device was lost'), 'DEVICE_LOST'],
    ['the primary\'s deadline share running out', new TimeoutError('The request missed its deadline.'), 'TIMEOUT'],
  ])('%s lets the fallback answer', (_name, error, code) => {
    expect(fallbackTrigger(error)).toBe(code);
  });

  it.each([
    ['bad input (the fallback would fail the same way)', new InputError('not an image', { reason: 'not-an-image' })],
    ['a cancellation (nobody wants the answer)', new CancelledError('cancelled')],
    ['backpressure (the fallback would only add load)', new BusyError('busy')],
    ['a worker crash (already retried; usually the input)', new WorkerCrashedError('crashed')],
    ['a validation error', new ValidationError('bad release')],
    ['an internal error', new LanternError('bug')],
    ['a plain Error', new Error('boom')],
    ['a non-error', 'boom'],
  ])('%s does not', (_name, error) => {
    expect(fallbackTrigger(error)).toBeUndefined();
  });
});

describe('deadline split', () => {
  it('gives the primary the whole timeout without a fallback and its share with one', () => {
    expect(primaryDeadline(1000, 400, false)).toBe(1400);
    expect(primaryDeadline(1000, 400, true)).toBe(1000 + 400 * PRIMARY_SHARE);
    expect(PRIMARY_SHARE).toBeGreaterThan(0);
    expect(PRIMARY_SHARE).toBeLessThan(1);
  });

  it('sets no deadline when the caller set none', () => {
    expect(primaryDeadline(1000, undefined, true)).toBeUndefined();
  });
});

describe('label compatibility', () => {
  it('accepts the same labels in any order', () => {
    expect(sameLabels(['ham', 'spam'], ['spam', 'ham'])).toBe(true);
  });

  it('refuses different, missing or extra labels', () => {
    expect(sameLabels(['ham', 'spam'], ['ham', 'spam-v2'])).toBe(false);
    expect(sameLabels(['ham', 'spam'], ['ham'])).toBe(false);
    expect(sameLabels(['ham', 'spam'], ['ham', 'spam', 'other'])).toBe(false);
    expect(sameLabels(['ham', 'ham'], ['ham', 'spam'])).toBe(false);
  });
});

describe('whether a fallback may answer', () => {
  it('only in its primary\'s labels, and never when the primary\'s labels are unknown', () => {
    expect(mayAnswerFor(['ham', 'spam'], ['spam', 'ham'])).toBe(true);
    expect(mayAnswerFor(['ham', 'spam'], ['ham', 'spam', 'promo'])).toBe(false);
    expect(mayAnswerFor(undefined, ['ham', 'spam'])).toBe(false);
    expect(mayAnswerFor(['ham', 'spam'], undefined)).toBe(false);
  });
});
