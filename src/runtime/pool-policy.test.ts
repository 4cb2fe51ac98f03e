import { describe, expect, it } from 'vitest';
import { LOAD_GAP_MS, PoolPolicy } from './pool-policy.ts';

function policy(backlogWorkers = 2) {
  const clock = { now: 0 };
  const alive = new Set<number>([0]);
  const pool = new PoolPolicy({ backlogWorkers, running: (w) => alive.has(w), sustainedMs: 1000, now: () => clock.now });
  /** The first worker holds two batches from 0 until `ms`. */
  const saturatedUntil = (ms: number) => {
    pool.started(0);
    pool.started(0);
    clock.now = ms;
  };
  return { pool, clock, alive, saturatedUntil };
}

describe('PoolPolicy', () => {
  it('keeps the backlog workers cold through a burst, and warms them once the first worker is saturated for a second', () => {
    const { pool, clock, saturatedUntil } = policy();
    expect(pool.workers).toBe(3);
    saturatedUntil(999);
    expect(pool.toWarm('m')).toEqual([]);
    expect(pool.mayTake(1, 'm')).toBe(false);
    clock.now = 1000;
    expect(pool.toWarm('m')).toEqual([1, 2]);
    // Asked once: they are warming now.
    expect(pool.toWarm('m')).toEqual([]);
  });

  it('never warms them for one request at a time, however long the first worker works', () => {
    const { pool, clock } = policy();
    pool.started(0);
    clock.now = 5000;
    // One batch in the worker: it keeps up with what it is given.
    expect(pool.toWarm('m')).toEqual([]);
  });

  it('lets a load go on through a short idle moment, and starts a new one after a longer pause', () => {
    const { pool, clock } = policy();
    pool.started(0);
    clock.now = 500;
    pool.finished(0);
    // Idle for a round trip between two rounds of requests: the same load.
    clock.now = 500 + LOAD_GAP_MS;
    pool.started(0);
    pool.started(0);
    clock.now = 1000;
    expect(pool.toWarm('m')).toEqual([1, 2]);

    const fresh = policy();
    fresh.pool.started(0);
    fresh.clock.now = 500;
    fresh.pool.finished(0);
    // Idle a little longer than that: what follows is a new load.
    fresh.clock.now = 501 + LOAD_GAP_MS;
    fresh.pool.started(0);
    fresh.pool.started(0);
    fresh.clock.now = 1000;
    expect(fresh.pool.toWarm('m')).toEqual([]);
    fresh.clock.now = 1501 + LOAD_GAP_MS;
    expect(fresh.pool.toWarm('m')).toEqual([1, 2]);
  });

  it('rests the first worker while a warm backlog worker serves the same model, not another one', () => {
    const { pool, alive, saturatedUntil } = policy();
    saturatedUntil(1000);
    pool.toWarm('m');
    alive.add(1).add(2);
    pool.warmed(1, 'm', true);
    expect(pool.mayTake(1, 'm')).toBe(true);
    expect(pool.mayTake(2, 'm')).toBe(false);
    // Warm but idle backlog workers leave a lone request to the first worker.
    expect(pool.mayTake(0, 'm')).toBe(true);
    pool.started(1);
    expect(pool.mayTake(0, 'm')).toBe(false);
    expect(pool.mayTake(0, 'other')).toBe(true);
    expect(pool.mayTake(1, 'other')).toBe(false);
    pool.finished(1);
    expect(pool.mayTake(0, 'm')).toBe(true);
  });

  it('warms a stopped backlog worker again, but never retries a failed warm-up', () => {
    const { pool, alive, saturatedUntil } = policy();
    saturatedUntil(1000);
    pool.toWarm('m');
    alive.add(1);
    pool.warmed(1, 'm', true);
    pool.warmed(2, 'm', false);
    // Worker 1 stopped after its idle time: it holds no session any more.
    alive.delete(1);
    expect(pool.mayTake(1, 'm')).toBe(false);
    expect(pool.toWarm('m')).toEqual([1]);
  });

  it('with no backlog workers is a single worker that always takes work', () => {
    const { pool, saturatedUntil } = policy(0);
    expect(pool.workers).toBe(1);
    saturatedUntil(5000);
    expect(pool.toWarm('m')).toEqual([]);
    expect(pool.mayTake(0, 'm')).toBe(true);
  });
});
