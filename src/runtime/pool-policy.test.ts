import { describe, expect, it } from 'vitest';
import { LOAD_GAP_MS, PoolPolicy, SUSTAINED_LOAD_MS } from './pool-policy.ts';

const S = SUSTAINED_LOAD_MS;

function policy(backlogWorkers = 2) {
  const clock = { now: 0 };
  const alive = new Set<number>([0]);
  const pool = new PoolPolicy({ backlogWorkers, running: (w) => alive.has(w), now: () => clock.now });
  /** The first worker holds two batches from 0 until `ms`. */
  const saturatedUntil = (ms: number) => {
    pool.started(0);
    pool.started(0);
    clock.now = ms;
  };
  return { pool, clock, alive, saturatedUntil };
}

describe('PoolPolicy', () => {
  it('keeps the backlog workers cold through a burst, and warms them once the first worker has been saturated for the sustained time', () => {
    const { pool, clock, saturatedUntil } = policy();
    expect(pool.workers).toBe(3);
    saturatedUntil(S - 1);
    expect(pool.toWarm('m')).toEqual([]);
    expect(pool.mayTake(1, 'm')).toBe(false);
    clock.now = S;
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
    clock.now = S;
    expect(pool.toWarm('m')).toEqual([1, 2]);

    const fresh = policy();
    fresh.pool.started(0);
    fresh.clock.now = 500;
    fresh.pool.finished(0);
    // Idle a little longer than that: what follows is a new load.
    fresh.clock.now = 501 + LOAD_GAP_MS;
    fresh.pool.started(0);
    fresh.pool.started(0);
    fresh.clock.now = S;
    expect(fresh.pool.toWarm('m')).toEqual([]);
    fresh.clock.now = S + 501 + LOAD_GAP_MS;
    expect(fresh.pool.toWarm('m')).toEqual([1, 2]);
  });

  it('rests the first worker for a model while the load goes on and a backlog worker is warm for it, not for another model', () => {
    const { pool, clock, alive, saturatedUntil } = policy();
    saturatedUntil(S);
    pool.toWarm('m');
    alive.add(1).add(2);
    pool.warmed(1, 'm', true);
    expect(pool.mayTake(1, 'm')).toBe(true);
    expect(pool.mayTake(2, 'm')).toBe(false);
    // The first worker still holds its two batches: the load goes on, and it takes no more of m.
    expect(pool.mayTake(0, 'm')).toBe(false);
    expect(pool.mayTake(0, 'other')).toBe(true);
    expect(pool.mayTake(1, 'other')).toBe(false);
    pool.finished(0);
    pool.finished(0);
    pool.started(1);
    pool.finished(1);
    // A pause within the load: it still rests; after a longer one, a lone request gets it again.
    clock.now += LOAD_GAP_MS;
    expect(pool.mayTake(0, 'm')).toBe(false);
    clock.now += 1;
    expect(pool.mayTake(0, 'm')).toBe(true);
  });

  it('warms a stopped backlog worker again, but never retries a failed warm-up', () => {
    const { pool, alive, saturatedUntil } = policy();
    saturatedUntil(S);
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
    saturatedUntil(5 * S);
    expect(pool.toWarm('m')).toEqual([]);
    expect(pool.mayTake(0, 'm')).toBe(true);
  });
});
