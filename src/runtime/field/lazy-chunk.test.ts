import { describe, expect, it } from 'vitest';
import { loadChunk } from './lazy-chunk.ts';

describe('loadChunk', () => {
  it('tries a chunk that failed to load again each time the browser is back online, until it loads', async () => {
    const browser = new EventTarget();
    const answers = [new TypeError('Failed to fetch dynamically imported module'), new TypeError('Failed to fetch dynamically imported module'), { followStore: 'loaded' }];
    let tries = 0;
    const load = async () => {
      const answer = answers[tries++];
      if (answer instanceof Error) throw answer;
      return answer;
    };
    let chunk: unknown;
    void loadChunk(load, browser).then((loaded) => (chunk = loaded));
    await expect.poll(() => tries).toBe(1);
    browser.dispatchEvent(new Event('online'));
    await expect.poll(() => tries).toBe(2);
    expect(chunk).toBeUndefined();
    browser.dispatchEvent(new Event('online'));
    await expect.poll(() => chunk).toEqual({ followStore: 'loaded' });
    expect(tries).toBe(3);
  });
});
