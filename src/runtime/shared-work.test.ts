import { describe, expect, it } from 'vitest';
import { CancelledError } from './errors.ts';
import { SharedWork } from './shared-work.ts';

/** Work the test finishes by hand, recording the signal and progress callback it was started with. */
function manualWork() {
  const starts: { signal: AbortSignal; progress: (p: number) => void; finish: (value: string) => void; fail: (error: Error) => void }[] = [];
  const start = (signal: AbortSignal, progress: (p: number) => void) => new Promise<string>((finish, fail) => starts.push({ signal, progress, finish, fail }));
  return { starts, start };
}

const settle = <T>(promise: Promise<T>) => promise.then((value) => ({ value }), (error: unknown) => ({ error }));
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('SharedWork', () => {
  it('runs the work once for every caller that asks while it runs, then starts afresh', async () => {
    const work = new SharedWork<string, number>();
    const { starts, start } = manualWork();
    const a = work.join('m', start);
    const b = work.join('m', start);
    await tick();
    expect(starts).toHaveLength(1);
    expect(work.has('m')).toBe(true);
    starts[0]!.finish('done');
    expect(await Promise.all([a, b])).toEqual(['done', 'done']);
    expect(work.has('m')).toBe(false);
    const c = work.join('m', start);
    await tick();
    expect(starts).toHaveLength(2);
    starts[1]!.finish('again');
    expect(await c).toBe('again');
  });

  it('lets one caller leave on its signal at once while the work goes on for the other', async () => {
    const work = new SharedWork<string, number>();
    const { starts, start } = manualWork();
    const leaving = new AbortController();
    const a = work.join('m', start, { signal: leaving.signal });
    const b = work.join('m', start);
    await tick();
    leaving.abort();
    expect(await settle(a)).toEqual({ error: expect.any(CancelledError) });
    expect(starts[0]!.signal.aborted).toBe(false);
    starts[0]!.finish('done');
    expect(await b).toBe('done');
  });

  it('aborts the work once every caller has left, and the next caller starts a new run', async () => {
    const work = new SharedWork<string, number>();
    const { starts, start } = manualWork();
    const first = new AbortController();
    const second = new AbortController();
    const a = work.join('m', start, { signal: first.signal });
    const b = work.join('m', start, { signal: second.signal });
    await tick();
    first.abort();
    expect(starts[0]!.signal.aborted).toBe(false);
    second.abort();
    expect(starts[0]!.signal.aborted).toBe(true);
    expect(await settle(a)).toEqual({ error: expect.any(CancelledError) });
    expect(await settle(b)).toEqual({ error: expect.any(CancelledError) });
    // The cancelled run's failure reaches nobody; a new caller is not joined to it.
    starts[0]!.fail(new CancelledError('The download was cancelled.'));
    const c = work.join('m', start);
    await tick();
    expect(starts).toHaveLength(2);
    starts[1]!.finish('fresh');
    expect(await c).toBe('fresh');
  });

  it('tells every waiting caller the progress, from the first step, and none after it left', async () => {
    const work = new SharedWork<string, number>();
    const heard: string[] = [];
    const leaving = new AbortController();
    const a = work.join('m', async (_signal, progress) => {
      progress(1);
      await tick();
      progress(2);
      await tick();
      progress(3);
      return 'done';
    }, { onProgress: (p) => heard.push(`a${p}`) });
    const b = settle(work.join('m', () => Promise.reject(new Error('not started twice')), { signal: leaving.signal, onProgress: (p) => {
      heard.push(`b${p}`);
      if (p === 2) leaving.abort();
    } }));
    expect(await a).toBe('done');
    expect(await b).toEqual({ error: expect.any(CancelledError) });
    expect(heard).toEqual(['a1', 'b1', 'a2', 'b2', 'a3']);
  });

  it('gives every caller the work\'s failure, and refuses an aborted signal without starting anything', async () => {
    const work = new SharedWork<string, number>();
    const { starts, start } = manualWork();
    const a = work.join('m', start);
    const b = work.join('m', start);
    await tick();
    starts[0]!.fail(new Error('disk full'));
    expect(await settle(a)).toEqual({ error: new Error('disk full') });
    expect(await settle(b)).toEqual({ error: new Error('disk full') });
    const aborted = AbortSignal.abort();
    expect(await settle(work.join('m', start, { signal: aborted }))).toEqual({ error: expect.any(CancelledError) });
    await tick();
    expect(starts).toHaveLength(1);
  });
});
