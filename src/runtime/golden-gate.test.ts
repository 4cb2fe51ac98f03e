import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { BusyError, RuntimeUnavailableError } from './errors.ts';
import { goldenValidator } from './golden-gate.ts';
import { Lantern } from './lantern.ts';
import { readVerified } from './store/verified-read.ts';
import { keyAndTrust, makeRelease } from './store/test-helpers.ts';
import type { KeyFile } from './store/trust.ts';
import { fakeSource, fakeWorkers, stubNavigatorLocks } from './worker.test-helpers.ts';

/**
 * The gate's runner on a real Lantern (scheduler, WorkerClient, comlink) with fake workers whose
 * "model" labels each text with itself: a golden item is correct when its text is its label.
 */
let key: KeyFile;
beforeAll(async () => ({ key } = await keyAndTrust()));
let lantern: Lantern | undefined;
beforeEach(stubNavigatorLocks);
afterEach(() => {
  lantern?.dispose();
  lantern = undefined;
  vi.unstubAllGlobals();
});

async function candidate(items: { text: string; label: string }[]) {
  const release = await makeRelease(key, {
    version: '1.1.0', sequence: 2,
    validation: { threshold: 0.5, items: items.map(({ text, label }) => ({ input: { kind: 'text' as const, text }, label })) },
  });
  const read = await readVerified({ getChunk: async (sha) => chunkOf(release, sha) }, release.manifest);
  if (!read.ok) throw new Error('test release did not verify');
  return { manifest: release.manifest, read };
}

function chunkOf(release: Awaited<ReturnType<typeof makeRelease>>, sha: string): ArrayBuffer | undefined {
  for (const file of release.manifest.files) {
    const i = file.chunks.indexOf(sha);
    if (i >= 0) return release.files.get(file.path)!.slice(i * file.chunkSize, (i + 1) * file.chunkSize).buffer;
  }
  return undefined;
}

function runtime() {
  const { createWorker, log } = fakeWorkers();
  lantern = new Lantern({ createWorker, models: fakeSource(['demo']), idleMs: 0 });
  return { lantern, log };
}

describe('goldenValidator', () => {
  it('counts correct, wrong and failed items, and frees the candidate afterwards', async () => {
    const { lantern, log } = runtime();
    const { manifest, read } = await candidate([
      { text: 'a', label: 'a' }, { text: 'b', label: 'b' }, { text: 'c', label: 'not c' }, { text: '', label: 'a' },
    ]);
    expect(await goldenValidator(() => lantern)(manifest, read)).toEqual({ total: 4, correct: 2, failed: 1 });
    const worker = log.started[0]!;
    expect(worker.batches.every((b) => b.key.startsWith('candidate:'))).toBe(true);
    expect(worker.loaded.size).toBe(0);
  });

  it('is not failed by a worker crash: the items are retried like any request', async () => {
    const { lantern, log } = runtime();
    const items = Array.from({ length: 40 }, (_, i) => ({ text: `item ${i}`, label: `item ${i}` }));
    const { manifest, read } = await candidate(items);
    let crashes = 1;
    log.onClassify = (inputs, worker) => { if (inputs.some((i) => i.kind === 'text' && i.text === 'item 20') && crashes-- > 0) worker.die(); };
    expect(await goldenValidator(() => lantern)(manifest, read)).toEqual({ total: 40, correct: 40, failed: 0 });
    expect(log.started.length).toBe(2);
  });

  it('gives no verdict when the request queue is full: BusyError, not failed items', async () => {
    const { createWorker } = fakeWorkers();
    lantern = new Lantern({ createWorker, models: fakeSource(['demo']), idleMs: 0, maxQueued: 4 });
    const { manifest, read } = await candidate(Array.from({ length: 16 }, (_, i) => ({ text: `${i}`, label: `${i}` })));
    await expect(goldenValidator(() => lantern!)(manifest, read)).rejects.toBeInstanceOf(BusyError);
  });

  it('gives no verdict when ONNX Runtime cannot start: RuntimeUnavailableError, not a rejected release', async () => {
    const { lantern, log } = runtime();
    log.onLoad = () => {
      throw new RuntimeUnavailableError('ONNX Runtime could not start: the wasm did not arrive');
    };
    const { manifest, read } = await candidate([{ text: 'a', label: 'a' }]);
    await expect(goldenValidator(() => lantern)(manifest, read)).rejects.toBeInstanceOf(RuntimeUnavailableError);
  });

  it('submits the golden set in slices, so it never fills the request queue', async () => {
    const { lantern, log } = runtime();
    const { manifest, read } = await candidate(Array.from({ length: 40 }, (_, i) => ({ text: `${i}`, label: `${i}` })));
    // Each slice is submitted at once (one batch per tick): the worker sees slices, never all 40.
    const batches: number[] = [];
    log.onClassify = (inputs) => batches.push(inputs.length);
    await goldenValidator(() => lantern)(manifest, read);
    expect(batches.reduce((a, b) => a + b, 0)).toBe(40);
    expect(Math.max(...batches)).toBeLessThanOrEqual(16);
    expect(batches.length).toBeGreaterThanOrEqual(3);
  });
});
