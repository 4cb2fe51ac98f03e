import { describe, expect, it } from 'vitest';
import { agreement, comparableInShadow, emptyFigures, latencyRatio, mayRunShadow, readyToPromote, withComparison, withError, withSkip, type ShadowFigures } from './shadow.ts';

const idle = { hidden: false, queued: 0, running: 0, shadowInFlight: 0 };

describe('when a shadow run may start', () => {
  it('only on an idle, visible runtime', () => {
    expect(mayRunShadow(idle)).toBe(true);
  });

  it.each([
    ['the page is hidden', { hidden: true }],
    ['a request is queued', { queued: 1 }],
    ['a batch is running (load)', { running: 1 }],
    ['another shadow run is in flight', { shadowInFlight: 1 }],
  ])('never when %s', (_name, change) => {
    expect(mayRunShadow({ ...idle, ...change })).toBe(false);
  });
});

function compared(pairs: [string, string][], activeMs = 2, candidateMs = 3): ShadowFigures {
  return pairs.reduce((f, [activeLabel, candidateLabel]) => withComparison(f, { activeLabel, candidateLabel, activeMs, candidateMs }), emptyFigures());
}

describe('shadow figures', () => {
  it('count runs, top-1 agreement and both label distributions', () => {
    const f = compared([['spam', 'spam'], ['ham', 'ham'], ['ham', 'spam'], ['spam', 'spam']]);
    expect(f.runs).toBe(4);
    expect(agreement(f)).toBe(0.75);
    expect(f.activeLabels).toEqual({ spam: 2, ham: 2 });
    expect(f.candidateLabels).toEqual({ spam: 3, ham: 1 });
  });

  it('give the latency ratio of candidate to active model time', () => {
    expect(latencyRatio(compared([['a', 'a'], ['b', 'b']], 2, 3))).toBe(1.5);
    expect(latencyRatio(emptyFigures())).toBeUndefined();
    expect(agreement(emptyFigures())).toBeUndefined();
  });

  it('keep errors and skips apart from runs', () => {
    const f = withSkip(withError(compared([['a', 'a']])));
    expect(f).toMatchObject({ runs: 1, errors: 1, skipped: 1, agreements: 1 });
  });

  it('never change the figures they were given', () => {
    const before = compared([['a', 'a']]);
    const copy = structuredClone(before);
    withComparison(before, { activeLabel: 'a', candidateLabel: 'b', activeMs: 1, candidateMs: 1 });
    withError(before);
    expect(before).toEqual(copy);
  });
});

describe('automatic promotion', () => {
  const policy = { minRuns: 4, minAgreement: 0.75 };

  it('waits for enough runs', () => {
    expect(readyToPromote(compared([['a', 'a'], ['a', 'a'], ['a', 'a']]), policy)).toBe(false);
    expect(readyToPromote(compared([['a', 'a'], ['a', 'a'], ['a', 'a'], ['a', 'a']]), policy)).toBe(true);
  });

  it('needs agreement at or above the bar', () => {
    expect(readyToPromote(compared([['a', 'a'], ['a', 'a'], ['a', 'a'], ['a', 'b']]), policy)).toBe(true);
    expect(readyToPromote(compared([['a', 'a'], ['a', 'a'], ['a', 'b'], ['a', 'b']]), policy)).toBe(false);
  });

  it('never promotes a candidate that failed in shadow', () => {
    expect(readyToPromote(withError(compared([['a', 'a'], ['a', 'a'], ['a', 'a'], ['a', 'a']])), policy)).toBe(false);
  });
});

describe('which candidates shadow evaluation can compare', () => {
  it('only those speaking the active version\'s labels (by name, in any order)', () => {
    expect(comparableInShadow(['ham', 'spam'], ['spam', 'ham'])).toBe(true);
    expect(comparableInShadow(['ham', 'spam'], ['ham', 'junk'])).toBe(false);
    expect(comparableInShadow(['ham', 'spam'], ['ham', 'spam', 'promo'])).toBe(false);
  });
});
