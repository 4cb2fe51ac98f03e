import { describe, expect, it } from 'vitest';
import { ShadowBook } from './shadow-book.ts';
import { withComparison, withSkip } from './shadow.ts';
import { memoryStorage } from './memory-storage.test-helpers.ts';

describe('ShadowBook', () => {
  it('keeps figures per candidate across reloads, and only figures', () => {
    const storage = memoryStorage();
    new ShadowBook(storage).update('spam@2.0.0', (f) => withComparison(f, { activeLabel: 'spam', candidateLabel: 'spam', activeMs: 1, candidateMs: 2 }));
    const again = new ShadowBook(storage);
    expect(again.figures('spam@2.0.0')).toMatchObject({ runs: 1, agreements: 1, activeLabels: { spam: 1 } });
    expect(again.figures('other@1.0.0').runs).toBe(0);
    expect([...storage.data.values()].join()).not.toMatch(/text|input/);
  });

  it('forgets a decided candidate and notifies', () => {
    const book = new ShadowBook(memoryStorage());
    let calls = 0;
    book.subscribe(() => calls++);
    book.update('a@1.0.0', withSkip);
    book.forget('a@1.0.0');
    book.forget('a@1.0.0');
    expect(book.figures('a@1.0.0').skipped).toBe(0);
    expect(calls).toBe(2);
  });

  it('reads damaged storage as empty, one candidate at a time: another candidate\'s figures survive', () => {
    const storage = memoryStorage();
    storage.setItem('lantern.shadowFigures', '{"a@1.0.0":{"runs":-1}}');
    expect(new ShadowBook(storage).figures('a@1.0.0').runs).toBe(0);
    const book = new ShadowBook(storage);
    book.update('b@2.0.0', withSkip);
    const saved = JSON.parse(storage.getItem('lantern.shadowFigures')!) as Record<string, unknown>;
    storage.setItem('lantern.shadowFigures', JSON.stringify({ ...saved, 'c@1.0.0': { runs: 'many' } }));
    const reloaded = new ShadowBook(storage);
    expect(reloaded.figures('b@2.0.0').skipped).toBe(1);
    expect(reloaded.figures('c@1.0.0').runs).toBe(0);
  });

  it('counts labels named like Object.prototype members as any other word, and keeps every candidate\'s figures across a reload', () => {
    const storage = memoryStorage();
    const book = new ShadowBook(storage);
    for (let i = 0; i < 40; i++) book.update('acme/spam@2.0.0', (f) => withComparison(f, { activeLabel: 'spam', candidateLabel: 'spam', activeMs: 5, candidateMs: 6 }));
    for (const label of ['constructor', 'toString', 'constructor']) book.update('jobs/title@1.1.0', (f) => withComparison(f, { activeLabel: label, candidateLabel: label, activeMs: 5, candidateMs: 6 }));
    const reloaded = new ShadowBook(storage);
    expect(reloaded.figures('acme/spam@2.0.0').runs).toBe(40);
    expect(reloaded.figures('jobs/title@1.1.0').candidateLabels).toEqual({ constructor: 2, toString: 1 });
  });
});
