import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { keepUpdating, UPDATE_EVERY_MS } from './update-schedule.ts';

/** A document whose visibility the test sets, and a window, both real EventTargets. */
class FakeDocument extends EventTarget {
  visibilityState: DocumentVisibilityState = 'visible';
  show(state: DocumentVisibilityState): void {
    this.visibilityState = state;
    this.dispatchEvent(new Event('visibilitychange'));
  }
}

const HOUR = 3_600_000;

/** The schedule over fakes: each update call stays pending until the test settles it. */
function schedule(options: { mayDownload?: boolean; hidden?: boolean } = {}) {
  const doc = new FakeDocument();
  if (options.hidden) doc.visibilityState = 'hidden';
  const win = new EventTarget();
  const policy = new EventTarget();
  const calls: { resolve(): void; reject(): void }[] = [];
  const state = { mayDownload: options.mayDownload ?? true };
  const update = vi.fn(() => new Promise<void>((resolve, reject) => calls.push({ resolve, reject: () => reject(new Error('offline')) })));
  const stop = keepUpdating({
    update,
    mayDownload: () => state.mayDownload,
    doc,
    win,
    policyChanged: (listener) => {
      policy.addEventListener('change', listener);
      return () => policy.removeEventListener('change', listener);
    },
  });
  /** Settles the latest call and lets its handlers run. */
  const settle = async (ok = true) => {
    const call = calls.at(-1)!;
    if (ok) call.resolve();
    else call.reject();
    await vi.advanceTimersByTimeAsync(0);
  };
  return { doc, win, policy, state, update, stop, settle };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('automatic updates after start-up', () => {
  it('run at start, then again when the page is shown or the connection is back once the interval has passed', async () => {
    const { doc, win, update, settle, stop } = schedule();
    expect(update).toHaveBeenCalledTimes(1);
    await settle();
    // Shown again an hour later: too soon.
    vi.setSystemTime(Date.now() + HOUR);
    doc.show('visible');
    expect(update).toHaveBeenCalledTimes(1);
    vi.setSystemTime(Date.now() + UPDATE_EVERY_MS);
    doc.show('hidden');
    expect(update).toHaveBeenCalledTimes(1);
    doc.show('visible');
    expect(update).toHaveBeenCalledTimes(2);
    await settle();
    vi.setSystemTime(Date.now() + UPDATE_EVERY_MS);
    win.dispatchEvent(new Event('online'));
    expect(update).toHaveBeenCalledTimes(3);
    stop();
  });

  it('never run twice at once', async () => {
    const { doc, win, update, settle, stop } = schedule();
    vi.setSystemTime(Date.now() + 2 * UPDATE_EVERY_MS);
    doc.show('visible');
    win.dispatchEvent(new Event('online'));
    expect(update).toHaveBeenCalledTimes(1);
    await settle();
    expect(update).toHaveBeenCalledTimes(1);
    stop();
  });

  it('run on the timer while the page stays visible, not while it is hidden', async () => {
    const { doc, update, settle, stop } = schedule();
    await settle();
    await vi.advanceTimersByTimeAsync(UPDATE_EVERY_MS - 1);
    expect(update).toHaveBeenCalledTimes(1);
    // The next tick after the interval.
    await vi.advanceTimersByTimeAsync(HOUR);
    expect(update).toHaveBeenCalledTimes(2);
    await settle();
    doc.visibilityState = 'hidden';
    await vi.advanceTimersByTimeAsync(2 * UPDATE_EVERY_MS);
    expect(update).toHaveBeenCalledTimes(2);
    stop();
  });

  it('respect the data policy, and run as soon as it allows downloads again', async () => {
    const { policy, state, update, settle, stop } = schedule({ mayDownload: false });
    await vi.advanceTimersByTimeAsync(2 * UPDATE_EVERY_MS);
    expect(update).not.toHaveBeenCalled();
    state.mayDownload = true;
    policy.dispatchEvent(new Event('change'));
    expect(update).toHaveBeenCalledTimes(1);
    await settle();
    stop();
  });

  it('do not count a run that could not read the catalogs: coming back online tries again at once', async () => {
    const { win, update, settle, stop } = schedule();
    await settle(false);
    win.dispatchEvent(new Event('online'));
    expect(update).toHaveBeenCalledTimes(2);
    await settle();
    win.dispatchEvent(new Event('online'));
    expect(update).toHaveBeenCalledTimes(2);
    stop();
  });

  it('keep running after an update that threw at once', async () => {
    const doc = new FakeDocument();
    let calls = 0;
    const stop = keepUpdating({
      update: () => {
        calls++;
        throw new Error('no store');
      },
      mayDownload: () => true,
      doc,
      win: new EventTarget(),
      policyChanged: () => () => undefined,
    });
    await vi.advanceTimersByTimeAsync(0);
    doc.show('visible');
    expect(calls).toBe(2);
    stop();
  });

  it('start hidden without running, and run when first shown', () => {
    const { doc, update, stop } = schedule({ hidden: true });
    expect(update).not.toHaveBeenCalled();
    doc.show('visible');
    expect(update).toHaveBeenCalledTimes(1);
    stop();
  });

  it('stop listening when stopped', async () => {
    const { doc, win, policy, update, settle, stop } = schedule();
    await settle();
    stop();
    vi.setSystemTime(Date.now() + 2 * UPDATE_EVERY_MS);
    doc.show('visible');
    win.dispatchEvent(new Event('online'));
    policy.dispatchEvent(new Event('change'));
    await vi.advanceTimersByTimeAsync(2 * UPDATE_EVERY_MS);
    expect(update).toHaveBeenCalledTimes(1);
  });
});
