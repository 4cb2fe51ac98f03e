/**
 * What the e2e tests install in the page (init scripts, page.evaluate) and read back there: one
 * typed declaration instead of a cast in every spec. The app sets none of these; its runtime is
 * reached through `withLantern` (e2e/fixtures.ts).
 */
import type { LanternInput } from '../src/runtime/index.ts';

declare global {
  /** accuracy.spec.ts: makes the i-th evaluation input, in the page. */
  var evalInput: ((i: number) => Promise<LanternInput>) | undefined;
  /** classify.spec.ts: what navigator.share received. */
  var shared: { title: string; text: string }[] | undefined;
  /** example.spec.ts: every status the example page showed, in order. */
  var statuses: string[] | undefined;
  /**
   * metrics.spec.ts: every text uPlot drew on a chart canvas, by the chart's test id: where
   * (canvas pixels, left to right), in which colour, and in which drawing of the canvas (`frame`,
   * one per clear).
   */
  var drawnText: { chart: string; text: string; colour: string; frame: number; left: number; right: number; canvasWidth: number }[] | undefined;
  /** store.spec.ts: a storage estimate to report, and chunk writes to allow before failing as full. */
  var fakeQuota: { usage: number; quota: number } | undefined;
  var failChunkPuts: number | undefined;
}
