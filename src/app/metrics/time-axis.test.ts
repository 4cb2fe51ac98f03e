import { afterEach, describe, expect, it } from 'vitest';
import { setLanguage } from '../i18n/index.ts';
import { MIN_SPAN_S, timeRange, timeTickLabels, widestTimeLabel } from './time-axis.ts';

// 2026-11-30 19:13:20 local time, in seconds (the unit uPlot's time scale uses).
const AT = new Date(2026, 10, 30, 19, 13, 20).getTime() / 1000;

describe('time axis', () => {
  afterEach(() => setLanguage('en'));

  it('labels ticks with the wall-clock time at the precision their spacing needs', async () => {
    await setLanguage('en');
    // ICU versions differ on the space before AM/PM (U+0020 or U+202F).
    const labels = (ticks: number[], increment: number) => timeTickLabels(ticks, increment).map((l) => l.replace(/\s/g, ' '));
    expect(labels([AT, AT + 10], 10)).toEqual(['7:13:20 PM', '7:13:30 PM']);
    expect(labels([AT, AT + 300], 300)).toEqual(['7:13 PM', '7:18 PM']);
    expect(labels([AT], 86_400)).toEqual(['Nov 30']);
  });

  it('formats in the UI language', async () => {
    await setLanguage('hi');
    const [label] = timeTickLabels([AT], 300);
    expect(label).toBe(new Intl.DateTimeFormat('hi', { hour: 'numeric', minute: '2-digit' }).format(AT * 1000));
    expect(label).not.toMatch(/PM/);
  });

  it('spaces ticks by the widest label any tick spacing can get, in the UI language', async () => {
    const characters = (text: string) => text.length;
    await setLanguage('en');
    // "7:13:20 PM" (seconds) is wider than "7:13 PM" (minutes) and "Nov 30" (days).
    expect(widestTimeLabel(AT, characters)).toBe(timeTickLabels([AT], 1)[0]!.length);
    expect(widestTimeLabel(AT, characters)).toBeGreaterThan(timeTickLabels([AT], 86_400)[0]!.length);
    // A measure in which dates are the widest: the date decides.
    const datesWide = (text: string) => (/\d:\d/.test(text) ? 10 : 50);
    expect(widestTimeLabel(AT, datesWide)).toBe(50);
    await setLanguage('hi');
    expect(widestTimeLabel(AT, characters)).toBe(timeTickLabels([AT], 1)[0]!.length);
  });

  it('shows a single sample in the minute around it (uPlot would stretch it to a day), and keeps wider spans', () => {
    expect(timeRange([AT], AT, AT + 86_400)).toEqual([AT - MIN_SPAN_S / 2, AT + MIN_SPAN_S / 2]);
    expect(timeRange([AT, AT + 10], AT, AT + 10)).toEqual([AT + 5 - MIN_SPAN_S / 2, AT + 5 + MIN_SPAN_S / 2]);
    expect(timeRange([AT, AT + 600], AT, AT + 600)).toEqual([AT, AT + 600]);
    expect(timeRange([], null, null)).toEqual([null, null]);
  });
});
