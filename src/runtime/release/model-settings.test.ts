import { describe, expect, it } from 'vitest';
import { ModelSettings } from './model-settings.ts';

function memory(initial: Record<string, string> = {}) {
  const data = new Map(Object.entries(initial));
  return { getItem: (k: string) => data.get(k) ?? null, setItem: (k: string, v: string) => void data.set(k, v), data };
}

describe('ModelSettings', () => {
  it('has no fallback and no cache by default (both are opt-in)', () => {
    const settings = new ModelSettings(memory());
    expect(settings.fallbackFor('spam-filter')).toBeUndefined();
    expect(settings.cacheEnabled('spam-filter')).toBe(false);
  });

  it('remembers choices per model across instances', () => {
    const storage = memory();
    new ModelSettings(storage).set('spam-filter', { fallback: 'spam-lite', cache: true });
    const again = new ModelSettings(storage);
    expect(again.fallbackFor('spam-filter')).toBe('spam-lite');
    expect(again.cacheEnabled('spam-filter')).toBe(true);
    expect(again.cacheEnabled('spam-lite')).toBe(false);
  });

  it('clears a choice and notifies listeners', () => {
    const settings = new ModelSettings(memory());
    let calls = 0;
    settings.subscribe(() => calls++);
    settings.set('m', { fallback: 'n', cache: true });
    settings.set('m', { fallback: undefined });
    expect(settings.get('m')).toEqual({ cache: true });
    expect(calls).toBe(2);
  });

  it('never lets a model fall back to itself', () => {
    const settings = new ModelSettings(memory());
    settings.set('m', { fallback: 'm' });
    expect(settings.fallbackFor('m')).toBeUndefined();
  });

  it('clears a fallback that is gone or speaks other labels, with a note saying why, and keeps the other choices', () => {
    const settings = new ModelSettings(memory());
    settings.set('m', { fallback: 'n', cache: true });
    settings.set('p', { fallback: 'q' });
    settings.set('r', { fallback: 'gone' });
    const installed = new Set(['m', 'n', 'p', 'q', 'r']);
    settings.retain(installed, new Map([['m', ['a', 'b']], ['n', ['b', 'a']], ['p', ['a', 'b']], ['q', ['a', 'b', 'c']], ['r', ['a']]]));
    expect(settings.get('m')).toEqual({ fallback: 'n', cache: true });
    expect(settings.get('p')).toEqual({ fallbackCleared: { id: 'q', reason: 'labels' } });
    expect(settings.get('r')).toEqual({ fallbackCleared: { id: 'gone', reason: 'removed' } });
    expect(settings.fallbackFor('p')).toBeUndefined();
  });

  it('keeps the fallback of a model with no active version (quarantined, nothing to hand over to): that is when it answers', () => {
    const settings = new ModelSettings(memory());
    settings.set('m', { fallback: 'n' });
    settings.retain(new Set(['m', 'n']), new Map([['n', ['x']]]));
    expect(settings.fallbackFor('m')).toBe('n');
  });

  it('the note of a cleared fallback stays until the user chooses again or dismisses it, and survives a reload', () => {
    const storage = memory();
    const settings = new ModelSettings(storage);
    settings.set('m', { fallback: 'n' });
    settings.set('p', { fallback: 'n' });
    settings.retain(new Set(['m', 'p']), new Map());
    expect(new ModelSettings(storage).get('m').fallbackCleared).toEqual({ id: 'n', reason: 'removed' });
    settings.set('m', { cache: true });
    expect(settings.get('m').fallbackCleared).toBeDefined();
    settings.set('m', { fallback: undefined });
    expect(settings.get('m')).toEqual({ cache: true });
    settings.set('p', { fallbackCleared: undefined });
    expect(settings.get('p')).toEqual({});
  });

  it('ignores damaged stored settings', () => {
    expect(new ModelSettings(memory({ 'lantern.modelSettings': '{not json' })).get('m')).toEqual({});
    expect(new ModelSettings(memory({ 'lantern.modelSettings': '{"m":{"cache":"yes"}}' })).cacheEnabled('m')).toBe(false);
  });

  it('keeps working when storage refuses writes', () => {
    const settings = new ModelSettings({ getItem: () => null, setItem: () => { throw new DOMException('full', 'QuotaExceededError'); } });
    settings.set('m', { cache: true });
    expect(settings.cacheEnabled('m')).toBe(true);
  });
});
