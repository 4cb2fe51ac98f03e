import { describe, expect, it } from 'vitest';
import { Listeners } from './listeners.ts';

describe('Listeners', () => {
  it('calls every subscriber with the arguments, and no longer once unsubscribed', () => {
    const listeners = new Listeners<[number]>();
    const seen: string[] = [];
    const stopA = listeners.subscribe((n) => seen.push(`a${n}`));
    listeners.subscribe((n) => seen.push(`b${n}`));
    listeners.notify(1);
    stopA();
    listeners.notify(2);
    expect(seen).toEqual(['a1', 'b1', 'b2']);
  });

  it('lets a listener unsubscribe itself while being notified without skipping the others', () => {
    const listeners = new Listeners();
    const seen: string[] = [];
    const stop = listeners.subscribe(() => {
      seen.push('once');
      stop();
    });
    listeners.subscribe(() => seen.push('always'));
    listeners.notify();
    listeners.notify();
    expect(seen).toEqual(['once', 'always', 'always']);
  });
});
