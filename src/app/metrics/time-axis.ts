import { formatDateTime } from '../i18n/index.ts';

const MINUTE_S = 60;
const DAY_S = 86_400;
/** The narrowest time span a chart shows: one sample alone still gets a readable minute. */
export const MIN_SPAN_S = 60;

/**
 * Labels for time-axis ticks `incrementS` seconds apart (uPlot's x values are seconds since the
 * epoch), in the UI language, at the precision that spacing needs: seconds when ticks are less
 * than a minute apart, dates when they are a day or more apart. A fixed format would print the
 * same "7:13 PM" under six ticks, or "12:00 AM" under day ticks.
 */
export function timeTickLabels(ticksS: readonly number[], incrementS: number): string[] {
  const options: Intl.DateTimeFormatOptions = incrementS >= DAY_S ? { month: 'short', day: 'numeric' }
    : incrementS >= MINUTE_S ? { hour: 'numeric', minute: '2-digit' }
    : { hour: 'numeric', minute: '2-digit', second: '2-digit' };
  return ticksS.map((s) => formatDateTime(s * 1000, options));
}

/**
 * The drawn width of the widest label a time tick near `atS` can get, whatever the tick spacing
 * (seconds, minutes or a date); `measure` gives a text's width in CSS pixels. uPlot spaces ticks
 * by a fixed number of pixels, so a seconds label wider than that overlaps its neighbours.
 */
export function widestTimeLabel(atS: number, measure: (text: string) => number): number {
  return Math.max(...[1, MINUTE_S, DAY_S].map((increment) => measure(timeTickLabels([atS], increment)[0]!)));
}

/**
 * The x range in seconds: uPlot's (`min`, `max`), unless the data `xs` span less than
 * MIN_SPAN_S; then that minute around the data. uPlot itself stretches a single time value to a
 * whole day, so the data, not uPlot's range, decides.
 */
export function timeRange(xs: ArrayLike<number>, min: number | null, max: number | null): [number | null, number | null] {
  if (min === null || max === null || xs.length === 0) return [min, max];
  const first = xs[0]!;
  const last = xs[xs.length - 1]!;
  if (last - first >= MIN_SPAN_S) return [min, max];
  const middle = (first + last) / 2;
  return [middle - MIN_SPAN_S / 2, middle + MIN_SPAN_S / 2];
}
