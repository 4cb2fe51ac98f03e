/** `lantern/metrics`: aggregates of every request (never the inputs), memory figures and exports. */
import '../zod-setup.ts';

export { MetricsAggregator, STAGES, COLD_STAGES, CONFIDENCE_BINS, type ColdStage, type ModelSnapshot, type SeriesSnapshot, type Stage, type StageStats } from './aggregator.ts';
export { MetricsPersistence } from './persistence.ts';
export { MemorySampler, type Figure, type MemoryReport, type Unavailable } from './memory.ts';
export { BENCHMARK, benchmarkModel, sampleInputs, type BenchmarkRow } from './benchmark.ts';
export { exportCsv, exportJson } from './export.ts';
export { RELATIVE_ERROR } from './histogram.ts';
