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

  it('reads damaged storage as empty', () => {
    const storage = memoryStorage();
    storage.setItem('lantern.shadowFigures', '{"a@1.0.0":{"runs":-1}}');
    expect(new ShadowBook(storage).figures('a@1.0.0').runs).toBe(0);
  });
});
