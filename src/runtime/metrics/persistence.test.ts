import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MetricsAggregator } from './aggregator.ts';
import { failedRecord, okRecord } from './aggregator.test-helpers.ts';
import { MetricsPersistence } from './persistence.ts';

const deleteDb = () => new Promise<void>((resolve) => {
  const request = indexedDB.deleteDatabase('lantern-metrics');
  request.onsuccess = request.onerror = request.onblocked = () => resolve();
});

/** A fresh aggregator restored from (and saving to) the database: what a page load does. */
async function opened(options: ConstructorParameters<typeof MetricsPersistence>[1] = {}) {
  const agg = new MetricsAggregator();
  const p = new MetricsPersistence(agg, options);
  await p.start();
  return { agg, p };
}

describe('MetricsPersistence', () => {
  afterEach(async () => {
    await deleteDb();
  });

  it('survives a "reload": a new aggregator restores what the old one saved', async () => {
    const { agg: first, p: saving } = await opened({ debounceMs: 10 });
    first.record(okRecord());
    first.record(okRecord({ coldStart: true, load: { filesMs: 5, createMs: 7 } }));
    first.record(failedRecord('TIMEOUT'));
    await saving.stop();

    const { agg: second, p: loading } = await opened();
    expect(second.snapshot().totals).toEqual({ requests: 3, ok: 2, errors: 0, rejections: 1 });
    const [before, after] = [first.snapshot().series[0]!, second.snapshot().series[0]!];
    expect(after.since).toEqual(before.since);
    expect(after.coldStart).toEqual(before.coldStart);
    expect(after.window.count).toBe(2);
    expect(loading.lastError).toBeNull();
    await loading.stop();
  });

  it('debounces: many records make one write, debounceMs after the first', async () => {
    const { agg, p } = await opened({ debounceMs: 50 });
    const flush = vi.spyOn(p, 'flush');
    // Only the debounce timer is faked: fake-indexeddb keeps its own scheduling.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      for (let i = 0; i < 100; i++) agg.record(okRecord());
      vi.advanceTimersByTime(49);
      expect(flush).not.toHaveBeenCalled();
      vi.advanceTimersByTime(1);
      expect(flush).toHaveBeenCalledTimes(1);
      vi.advanceTimersByTime(500);
      expect(flush).toHaveBeenCalledTimes(1);
    } finally {
      vi.useRealTimers();
    }
    await p.stop();
  });

  it('refuses a save over the size limit instead of growing the database', async () => {
    const { agg, p } = await opened({ maxBytes: 100 });
    agg.record(okRecord());
    await p.flush();
    expect(p.lastError).toMatch(/over the 100-byte limit/);
    await p.stop();
  });

  it('discards an unreadable saved state and starts empty', async () => {
    const { agg, p } = await opened();
    agg.record(okRecord());
    await p.flush();
    await p.stop();
    // Corrupt the saved record by hand.
    await new Promise<void>((resolve) => {
      const open = indexedDB.open('lantern-metrics', 1);
      open.onsuccess = () => {
        const tx = open.result.transaction('state', 'readwrite');
        tx.objectStore('state').put({ format: 'something-else' }, 'aggregates');
        tx.oncomplete = () => { open.result.close(); resolve(); };
      };
    });
    const { agg: fresh, p: again } = await opened();
    expect(fresh.snapshot().totals.requests).toBe(0);
    expect(again.lastError).toMatch(/unreadable/);
    await again.stop();
  });

  it('clear() forgets everything, on disk too', async () => {
    const { agg, p } = await opened();
    agg.record(okRecord());
    await p.clear();
    await p.stop();
    const { agg: fresh, p: again } = await opened();
    expect(fresh.snapshot().totals.requests).toBe(0);
    await again.stop();
  });
});
