import { afterEach, describe, expect, it } from 'vitest';
import { formatBytes, formatMs, formatPercent } from './format.ts';
import { setLanguage } from './i18n/index.ts';

describe('locale-aware formatting', () => {
  afterEach(() => setLanguage('en'));

  it('formats sizes, percentages and milliseconds in English', async () => {
    await setLanguage('en');
    expect(formatBytes(512)).toBe('512 bytes');
    expect(formatBytes(1)).toBe('1 byte');
    expect(formatBytes(1536)).toBe('1.5 kB');
    expect(formatBytes(5 * 1024 ** 3)).toBe('5.0 GB');
    expect(formatPercent(0.4234)).toBe('42.3%');
    expect(formatPercent(0.4234, 0)).toBe('42%');
    expect(formatMs(1234.4)).toBe('1,234');
    expect(formatMs(Number.NaN)).toBe('–');
  });

  it('switches with the language (Indian grouping in Hindi)', async () => {
    await setLanguage('hi');
    expect(formatMs(123456)).toBe('1,23,456');
    expect(formatBytes(1536)).toMatch(/^1\.5\s?\S+/);
  });
});
