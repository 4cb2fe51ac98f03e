import { describe, expect, it } from 'vitest';
import { FIRST_RETRY_MS, LONGEST_RETRY_MS, StallRetry } from './stall-retry.ts';

describe('StallRetry', () => {
  function clocked() {
    let now = 1_000;
    const retry = new StallRetry(() => now);
    return { retry, advance: (ms: number) => (now += ms) };
  }

  it('tries again once nothing new was stored for the first wait, then waits twice as long each time, up to the longest wait', () => {
    const { retry, advance } = clocked();
    expect(retry.due(500)).toBe(false);
    advance(FIRST_RETRY_MS - 1);
    expect(retry.due(500)).toBe(false);
    advance(1);
    expect(retry.due(500)).toBe(true);
    // Asked again at once (the next reading): not due until the doubled wait has passed.
    expect(retry.due(500)).toBe(false);
    advance(2 * FIRST_RETRY_MS - 1);
    expect(retry.due(500)).toBe(false);
    advance(1);
    expect(retry.due(500)).toBe(true);
    const waits: number[] = [];
    for (let i = 0; i < 8; i++) {
      let waited = 0;
      while (!retry.due(500)) {
        advance(1_000);
        waited += 1_000;
      }
      waits.push(waited);
    }
    expect(waits.slice(0, 3)).toEqual([4 * FIRST_RETRY_MS, 8 * FIRST_RETRY_MS, 16 * FIRST_RETRY_MS]);
    expect(waits.at(-1)).toBe(LONGEST_RETRY_MS);
  });

  it('progress resets the wait: a slow download that keeps storing bytes is never interrupted', () => {
    const { retry, advance } = clocked();
    retry.due(0);
    advance(FIRST_RETRY_MS);
    expect(retry.due(0)).toBe(true);
    for (let stored = 1; stored < 20; stored++) {
      advance(FIRST_RETRY_MS - 1);
      expect(retry.due(stored)).toBe(false);
    }
    advance(FIRST_RETRY_MS);
    expect(retry.due(19)).toBe(true);
  });
});
