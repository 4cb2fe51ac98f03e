import { describe, expect, it } from 'vitest';
import type { ModelRegistry } from '../store/registry.ts';
import { rejectionReason, ReleaseDecisions } from './decisions.ts';
import { ShadowBook } from './shadow-book.ts';
import { emptyFigures, withComparison, withError } from './shadow.ts';

function setup() {
  const calls: string[] = [];
  const registry = {
    promote: (key: string) => Promise.resolve(void calls.push(`promote ${key}`)),
    rejectCandidate: (key: string, reason: string) => Promise.resolve(void calls.push(`reject ${key}: ${reason}`)),
    // Only spam@2.0.0 next to spam@1.0.0 is in shadow in this fake store.
    endShadow: (key: string, active: string) => {
      calls.push(`end ${key} next to ${active}`);
      return Promise.resolve(key === 'spam@2.0.0' && active === 'spam@1.0.0');
    },
  } as unknown as ModelRegistry;
  const book = new ShadowBook(undefined);
  const decided: string[] = [];
  const decisions = new ReleaseDecisions({ registry: Promise.resolve(registry), book, storage: undefined, onDecided: (key) => decided.push(key), now: () => new Date('2026-11-30T20:00:00Z') });
  book.update('spam@2.0.0', (f) => [1, 2, 3, 4].reduce((g, i) => withComparison(g, { activeLabel: 'spam', candidateLabel: i === 4 ? 'ham' : 'spam', activeMs: 1, candidateMs: 2 }), f));
  return { calls, book, decided, decisions };
}

describe('release decisions', () => {
  it('a promotion is recorded with the figures it was decided on', async () => {
    const { calls, book, decided, decisions } = setup();
    await decisions.promote('spam@2.0.0', true);
    expect(calls).toEqual(['promote spam@2.0.0']);
    expect(decisions.decisions()).toEqual([{
      key: 'spam@2.0.0', decision: 'promoted', automatic: true, at: '2026-11-30T20:00:00.000Z', runs: 4, agreement: 0.75, latencyRatio: 2, errors: 0,
    }]);
    expect(book.figures('spam@2.0.0').runs).toBe(0);
    expect(decided).toEqual(['spam@2.0.0']);
  });

  it('a rejection stores its figures as the version\'s reason too', async () => {
    const { calls, decisions } = setup();
    await decisions.reject('spam@2.0.0');
    expect(calls).toEqual(['reject spam@2.0.0: rejected after 4 shadow runs, 75.0% top-1 agreement, latency ×2.00, 0 errors']);
    expect(decisions.decisions()[0]).toMatchObject({ decision: 'rejected', automatic: false, runs: 4 });
  });

  it('an evaluation ended for other labels is recorded as automatic with its figures; one no longer next to that version is not', async () => {
    const { calls, book, decided, decisions } = setup();
    await decisions.end('spam@2.0.0', 'spam@1.5.0');
    expect(decisions.decisions()).toEqual([]);
    expect(book.figures('spam@2.0.0').runs).toBe(4);
    await decisions.end('spam@2.0.0', 'spam@1.0.0');
    expect(calls).toEqual(['end spam@2.0.0 next to spam@1.5.0', 'end spam@2.0.0 next to spam@1.0.0']);
    expect(decisions.decisions()).toEqual([{
      key: 'spam@2.0.0', decision: 'ended', automatic: true, at: '2026-11-30T20:00:00.000Z', runs: 4, agreement: 0.75, latencyRatio: 2, errors: 0,
    }]);
    expect(book.figures('spam@2.0.0').runs).toBe(0);
    expect(decided).toEqual(['spam@2.0.0']);
  });

  it('describes a candidate that never ran', () => {
    expect(rejectionReason(withError(emptyFigures()))).toBe('rejected after 0 shadow runs, – top-1 agreement, latency –, 1 errors');
  });
});
