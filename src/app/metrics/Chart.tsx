import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { formatDateTime, language, t } from '../i18n/index.ts';
import { timeRange, timeTickLabels, widestTimeLabel } from './time-axis.ts';

export type ChartOptions = Omit<uPlot.Options, 'width' | 'height'>;

/**
 * One uPlot chart, sized to its container. uPlot only sets element.style and uses the bundled
 * stylesheet, so it works under the page's style-src 'self' CSP. Remount (change `key`) when the
 * series change; data updates go through setData. A language switch rebuilds the chart: uPlot
 * keeps its title and legend from creation.
 */
export function Chart({ testId, label, options, data, height = 180 }: { testId: string; label: string; options: ChartOptions; data: uPlot.AlignedData; height?: number }) {
  const host = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const lang = language();

  useEffect(() => {
    const el = host.current!;
    const chart = new uPlot({ ...options, width: Math.max(200, el.clientWidth), height }, data, el);
    plot.current = chart;
    const observer = new ResizeObserver(() => chart.setSize({ width: Math.max(200, el.clientWidth), height }));
    observer.observe(el);
    return () => {
      observer.disconnect();
      chart.destroy();
      plot.current = null;
    };
    // Options are fixed for a chart's lifetime (callers remount through `key`), except their language.
  }, [lang]);

  useEffect(() => {
    plot.current?.setData(data);
  }, [data]);

  return <div class="chart" ref={host} data-testid={testId} role="img" aria-label={label} />;
}

/**
 * Series colours per colour scheme: the light ones are too dark to see on the dark theme's cards
 * (1.8:1 for the first), the dark ones at least 3:1 there. Chosen at each drawing, so a scheme
 * switch applies at the next update.
 */
const SERIES_COLOURS = {
  light: ['#1d4ed8', '#b91c1c', '#15803d', '#a16207', '#7e22ce', '#0e7490', '#c2410c', '#4d7c0f', '#be185d', '#334155'],
  dark: ['#93c5fd', '#fca5a5', '#86efac', '#fde047', '#d8b4fe', '#67e8f9', '#fdba74', '#bef264', '#f9a8d4', '#cbd5e1'],
};
const seriesColour = (i: number) => {
  const colours = SERIES_COLOURS[matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light'];
  return colours[i % colours.length]!;
};

/** A colour of the page's theme (styles.css), read when uPlot draws: CSS does not reach into its canvas. */
const themeColour = (u: uPlot, property: '--muted' | '--border') => getComputedStyle(u.root).getPropertyValue(property).trim();

/** An axis drawn in the theme's colours: uPlot's default black text and grid vanish on the dark theme. */
function themedAxis(axis: uPlot.Axis): uPlot.Axis {
  const line = () => ({ stroke: (u: uPlot) => themeColour(u, '--border'), width: 1 });
  return { stroke: (u) => themeColour(u, '--muted'), grid: line(), ticks: line(), ...axis };
}

/** Whole-number tick steps (1, 2, 5, 10, 20, …): a count axis never shows "1.5 requests". */
const COUNT_STEPS = Array.from({ length: 21 }, (_, i) => [1, 2, 5][i % 3]! * 10 ** Math.floor(i / 3));

/** Bars of counts over categories 0..n-1, labelled on the x axis (a histogram): the y axis starts at 0, so a bar of 1 is never drawn as empty. */
export function barOptions(title: string, labels: string[], yLabel: string): ChartOptions {
  return {
    title,
    legend: { show: false },
    scales: { x: { time: false, range: [-0.5, labels.length - 0.5] }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
    axes: [
      themedAxis({ values: (_u, splits) => splits.map((i) => labels[i] ?? ''), splits: () => labels.map((_, i) => i) }),
      themedAxis({ label: yLabel, incrs: COUNT_STEPS }),
    ],
    series: [{}, { label: yLabel, paths: uPlot.paths.bars!({ size: [0.8, 60] }), fill: () => `${seriesColour(0)}80`, stroke: () => seriesColour(0), points: { show: false } }],
  };
}

/** The time axis' font, named here so that its labels are measured in the font they are drawn in. */
const TIME_AXIS_FONT = '12px system-ui, sans-serif';
/** Pixels between two neighbouring time labels. */
const TIME_LABEL_GAP_PX = 16;
let measuringContext: OffscreenCanvasRenderingContext2D | undefined;

function timeAxisTextWidth(text: string): number {
  // A new canvas always has a 2D context to give.
  measuringContext ??= new OffscreenCanvas(1, 1).getContext('2d')!;
  measuringContext.font = TIME_AXIS_FONT;
  return measuringContext.measureText(text).width;
}

const widestTimeLabelIn = (u: uPlot) => widestTimeLabel(u.scales.x?.max ?? Date.now() / 1000, timeAxisTextWidth);

/**
 * Lines over time (x in seconds since the epoch, uPlot's default time unit). `yRange` fixes the
 * y axis (shares: 0–100 %); otherwise uPlot fits it to the data.
 */
export function lineOptions(title: string, names: string[], yLabel: string, yRange?: uPlot.Range.MinMax): ChartOptions {
  return {
    title,
    // The legend's time, in the UI language (uPlot's own formats are English).
    fmtDate: () => (date) => formatDateTime(date, { hour: 'numeric', minute: '2-digit', second: '2-digit' }),
    scales: {
      x: { time: true, range: (u, min, max) => timeRange(u.data[0], min, max) as uPlot.Range.MinMax },
      ...(yRange && { y: { range: yRange } }),
    },
    // Ticks far enough apart for their labels, and room on the right for a label centred on the last tick.
    padding: [null, (u) => Math.ceil(widestTimeLabelIn(u) / 2), null, null],
    axes: [themedAxis({
      font: TIME_AXIS_FONT,
      space: (u) => widestTimeLabelIn(u) + TIME_LABEL_GAP_PX,
      values: (_u, ticks, _axis, _space, increment) => timeTickLabels(ticks, increment),
    }), themedAxis({ label: yLabel })],
    // The x series labels the legend's time: uPlot's own label is the English "Time".
    series: [{ label: t('metrics.chart.time') }, ...names.map((name, i) => ({ label: name, stroke: () => seriesColour(i), width: 2 }))],
  };
}
