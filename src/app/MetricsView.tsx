import { useEffect, useState } from 'preact/hooks';
import type { DeviceReport } from '../runtime/index.ts';
import { type BenchmarkRow, MemorySampler, type MetricsAggregator, type MetricsPersistence, RELATIVE_ERROR } from '../runtime/metrics/index.ts';
import { enMetrics } from './i18n/en-metrics.ts';
import { addEnglish, t, tCount } from './i18n/index.ts';
import { BenchmarkCard } from './metrics/BenchmarkCard.tsx';
import { DeviceCard } from './metrics/DeviceCard.tsx';
import { DistributionCard } from './metrics/DistributionCard.tsx';
import { ExportBar } from './metrics/ExportBar.tsx';
import { FailuresCard } from './metrics/FailuresCard.tsx';
import { LatencyCard, seriesId } from './metrics/LatencyCard.tsx';
import { MemoryCard } from './metrics/MemoryCard.tsx';
import { ShadowCard } from './metrics/ShadowCard.tsx';
import { StartCard } from './metrics/StartCard.tsx';
import type { AppMetrics, Services } from './services.ts';
import { useInstalledModels } from './useInstalledModels.ts';

// Before any card renders: this screen's English messages come with its code.
addEnglish(enMetrics);

/** Redraws at most this often while requests stream in. */
const REFRESH_MS = 1000;

/**
 * One memory sampler per app, made with this screen's code: the sampler only runs while its card
 * is shown, so nothing on the first screen needs it. Its history lasts the visit.
 */
const samplers = new WeakMap<Services, MemorySampler>();
function memorySampler(services: Services): MemorySampler {
  let sampler = samplers.get(services);
  if (!sampler) {
    const { lantern, models } = services;
    sampler = new MemorySampler({
      workerWasm: () => lantern.workerMemory(),
      modelBytes: async () => (await (await models).registry.storageEstimate()).modelBytes,
    });
    samplers.set(services, sampler);
  }
  return sampler;
}

/** The metrics screen: what this device does with each model, from aggregates only. */
export function MetricsView({ services }: { services: Services }) {
  // Loaded just after the first screen: by the time anyone opens this one, it is there. If its
  // code could not load, there is nothing to show (classifying is unaffected).
  const [loaded, setLoaded] = useState<AppMetrics>();
  useEffect(() => void services.metrics.then(setLoaded, () => undefined), [services]);
  return loaded ? <MetricsScreen services={services} metrics={loaded.aggregator} metricsStore={loaded.persistence} /> : null;
}

function MetricsScreen({ services, metrics, metricsStore }: { services: Services; metrics: MetricsAggregator; metricsStore: MetricsPersistence }) {
  const { lantern } = services;
  const memory = memorySampler(services);
  const described = useInstalledModels(lantern, services.models).models ?? [];
  const [snapshot, setSnapshot] = useState(() => metrics.snapshot());
  const [device, setDevice] = useState<DeviceReport | null>(null);
  const [benchmark, setBenchmark] = useState<BenchmarkRow[]>([]);
  const [workerThreads, setWorkerThreads] = useState<number[]>([]);

  useEffect(() => {
    const update = () => {
      setSnapshot(metrics.snapshot());
      // The workers running change with the load (backlog workers) and with idle stops.
      void lantern.workerThreads().then(setWorkerThreads);
    };
    let timer: ReturnType<typeof setTimeout> | undefined;
    const refresh = () => {
      timer ??= setTimeout(() => {
        timer = undefined;
        update();
      }, REFRESH_MS);
    };
    const off = metrics.subscribe(refresh);
    // Also tick so the sliding window visibly slides when nothing happens.
    const tick = setInterval(() => {
      // A hidden page redraws nothing; visibility's return brings the next tick.
      if (document.visibilityState === 'visible') update();
    }, 10_000);
    update();
    return () => {
      off();
      clearTimeout(timer);
      clearInterval(tick);
    };
  }, [metrics, lantern]);

  useEffect(() => {
    // As in the header: the worker (and ORT's download) waits for a metered connection's yes.
    services.offline.runtimeAllowed.then(() => lantern.device()).then(setDevice, () => setDevice(null));
  }, [lantern, services]);

  const backendsUsed = [...new Set(snapshot.series.map((s) => s.backend))];
  return (
    <div class="metrics" data-testid="metrics" data-requests={snapshot.totals.requests}>
      <p class="hint" data-testid="metrics-summary">
        {t('metrics.summary', { requests: tCount('requests', snapshot.totals.requests), ok: snapshot.totals.ok, errors: tCount('errors', snapshot.totals.errors), rejections: snapshot.totals.rejections })}{' '}
        {t('metrics.precision', { error: RELATIVE_ERROR * 100, window: tCount('minutes', snapshot.windowMs / 60_000) })}
      </p>
      <ExportBar
        metrics={metrics}
        extra={() => ({ memory: memory.latest ?? null, device, workerThreads, benchmark })}
        onClear={() => void metricsStore.clear().then(() => setSnapshot(metrics.snapshot()))}
      />
      <DeviceCard device={device} backendsUsed={backendsUsed} workerThreads={workerThreads} />
      <BenchmarkCard lantern={lantern} rows={benchmark} onRows={setBenchmark} />
      {snapshot.series.length === 0 && <p class="hint" data-testid="metrics-empty">{t('metrics.empty')}</p>}
      {snapshot.series.map((s) => <LatencyCard key={seriesId(s)} series={s} />)}
      {snapshot.series.length > 0 && <StartCard series={snapshot.series} />}
      {snapshot.models.length > 0 && <FailuresCard models={snapshot.models} />}
      {snapshot.models.filter((m) => m.ok > 0).map((m) => <DistributionCard key={m.modelId} model={m} described={described.find((d) => d.id === m.modelId)} />)}
      <ShadowCard services={services} described={described} />
      <MemoryCard sampler={memory} />
    </div>
  );
}
