import { describe, expect, it } from 'vitest';
import { ModelSettings } from './model-settings.ts';
import { memoryStorage } from './memory-storage.test-helpers.ts';

describe('ModelSettings', () => {
  it('has no fallback and no cache by default (both are opt-in)', () => {
    const settings = new ModelSettings(memoryStorage());
    expect(settings.fallbackFor('spam-filter')).toBeUndefined();
    expect(settings.cacheEnabled('spam-filter')).toBe(false);
  });

  it('remembers choices per model across instances', () => {
    const storage = memoryStorage();
    new ModelSettings(storage).set('spam-filter', { fallback: 'spam-lite', cache: true });
    const again = new ModelSettings(storage);
    expect(again.fallbackFor('spam-filter')).toBe('spam-lite');
    expect(again.cacheEnabled('spam-filter')).toBe(true);
    expect(again.cacheEnabled('spam-lite')).toBe(false);
  });

  it('clears a choice and notifies listeners', () => {
    const settings = new ModelSettings(memoryStorage());
    let calls = 0;
    settings.subscribe(() => calls++);
    settings.set('m', { fallback: 'n', cache: true });
    settings.set('m', { fallback: undefined });
    expect(settings.get('m')).toEqual({ cache: true });
    expect(calls).toBe(2);
  });

  it('never lets a model fall back to itself', () => {
    const settings = new ModelSettings(memoryStorage());
    settings.set('m', { fallback: 'm' });
    expect(settings.fallbackFor('m')).toBeUndefined();
  });

  it('keeps only the settings of installed models', () => {
    const settings = new ModelSettings(memoryStorage());
    settings.set('m', { fallback: 'n', cache: true });
    settings.set('gone', { cache: true });
    settings.retain(new Set(['m']));
    expect(settings.get('m')).toEqual({ fallback: 'n', cache: true });
    expect(settings.get('gone')).toEqual({});
  });

  it('a fallback cleared is noted until the user chooses again or dismisses the note, across reloads', () => {
    const storage = memoryStorage();
    const settings = new ModelSettings(storage);
    settings.set('m', { fallback: 'n', cache: true });
    settings.set('p', { fallback: 'n' });
    settings.clearFallback('m', 'labels');
    settings.clearFallback('p', 'removed');
    settings.clearFallback('q', 'removed');
    const reloaded = new ModelSettings(storage);
    expect(reloaded.get('m')).toEqual({ cache: true, fallbackCleared: { id: 'n', reason: 'labels' } });
    expect(reloaded.fallbackFor('m')).toBeUndefined();
    expect(reloaded.get('q')).toEqual({});
    settings.set('m', { cache: false });
    expect(settings.get('m').fallbackCleared).toEqual({ id: 'n', reason: 'labels' });
    settings.set('m', { fallback: undefined });
    expect(settings.get('m')).toEqual({});
    settings.set('p', { fallbackCleared: undefined });
    expect(settings.get('p')).toEqual({});
  });

  it('ignores damaged stored settings', () => {
    expect(new ModelSettings(memoryStorage({ 'lantern.modelSettings': '{not json' })).get('m')).toEqual({});
    expect(new ModelSettings(memoryStorage({ 'lantern.modelSettings': '{"m":{"cache":"yes"}}' })).cacheEnabled('m')).toBe(false);
  });

  it('keeps working when storage refuses writes', () => {
    const settings = new ModelSettings({ getItem: () => null, setItem: () => { throw new DOMException('full', 'QuotaExceededError'); } });
    settings.set('m', { cache: true });
    expect(settings.cacheEnabled('m')).toBe(true);
  });
});
