import { Lantern } from '../runtime/lantern.ts';
import { MetricsAggregator } from '../runtime/metrics/aggregator.ts';
import { MemorySampler } from '../runtime/metrics/memory.ts';
import { MetricsPersistence } from '../runtime/metrics/persistence.ts';
import { openRegistry, type OpenedRegistry } from '../runtime/store/bootstrap.ts';
import { StoreModelSource } from '../runtime/store/store-model-source.ts';
import { autoRollback } from '../runtime/auto-rollback.ts';
import { goldenValidator } from '../runtime/golden-gate.ts';
import { DataPolicy, type ConnectionInfo } from '../runtime/field/data-policy.ts';
import { runtimeDefaults, type DeviceHints, type RuntimeDefaults } from '../runtime/field/device-profile.ts';
import { pauseWhileHidden } from '../runtime/field/visibility.ts';
import { releaseControls, type ReleaseControls } from '../runtime/release/controls.ts';
import { autoUpdate } from '../runtime/release/auto-update.ts';
import { SavedCatalogs } from '../runtime/store/catalog-sources.ts';
import { PwaController } from './pwa.ts';
import { backendFromUrl } from './url-settings.ts';

/**
 * Everything the views share, created once at start-up. Views receive this object instead of
 * reaching for globals, so tests and future screens can build their own.
 */
export interface Services {
  lantern: Lantern;
  /** The signed model store, once the built-in models are installed (first start) or found. */
  models: Promise<OpenedRegistry>;
  pwa: PwaController;
  /** Aggregates of every request (never the inputs), persisted across reloads. */
  metrics: MetricsAggregator;
  metricsStore: MetricsPersistence;
  memory: MemorySampler;
  /** When models may be downloaded and updates checked (user choice + connection). */
  data: DataPolicy;
  /** Batch, thread and metrics-window defaults sized to this device. */
  profile: RuntimeDefaults;
  /** Per-model fallback and result-cache choices; shadow evaluation and its decisions. */
  release: ReleaseControls;
}

/** Chromium-only navigator fields (Network Information API, Device Memory API). */
type FieldNavigator = Navigator & DeviceHints & { connection?: ConnectionInfo & EventTarget };

export function createServices(): Services {
  const params = new URLSearchParams(location.search);
  const nav = navigator as FieldNavigator;
  const profile = runtimeDefaults({ deviceMemory: nav.deviceMemory, hardwareConcurrency: nav.hardwareConcurrency });
  const data = new DataPolicy(globalThis.localStorage, nav.connection);
  // Golden sets run on the first worker of the pool, created below (the gate runs long after start-up).
  const models = openRegistry(document.baseURI, { storage: navigator.storage, mayDownload: () => data.automaticAllowed, validate: goldenValidator(() => lantern.clients[0]!) });
  const metrics = new MetricsAggregator({ windowMs: profile.metricsWindowMs });
  const source = new StoreModelSource(models.then((m) => m.registry));
  const release = releaseControls({
    runtime: () => lantern,
    registry: models.then((m) => m.registry),
    candidate: (id) => source.candidate(id),
    storage: globalThis.localStorage,
    hidden: () => document.visibilityState === 'hidden',
  });
  const watchVersions = autoRollback({ registry: models.then((m) => m.registry), source, onRolledBack: () => lantern.refreshModels() });
  const lantern: Lantern = new Lantern({
    createWorker: (name) => new Worker(new URL('../../workers/inference.worker.ts', import.meta.url), { type: 'module', name }),
    models: source,
    backend: backendFromUrl(),
    poolSize: Number(params.get('workers')) || undefined,
    idleMs: Number(params.get('idleMs') ?? 5 * 60_000),
    maxQueued: Number(params.get('maxQueued')) || profile.maxQueued,
    maxBatch: profile.maxBatch,
    ...(profile.threads ? { threads: profile.threads } : {}),
    policies: release.settings,
    onAnswer: (modelId, input, result) => release.runner.observe(modelId, input, result),
    onRecord: (record) => {
      metrics.record(record);
      watchVersions(record);
    },
  });
  const pwa = new PwaController();
  pwa.start();
  const metricsStore = new MetricsPersistence(metrics);
  void metricsStore.start();
  // Hidden is the last moment a page is reliably alive (mobile browsers kill without unload).
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden') void metricsStore.flush();
  });
  const memory = new MemorySampler({
    workerWasm: () => Promise.all(lantern.clients.filter((c) => c.running).map((c) => c.wasmMemory())),
    modelBytes: async () => (await (await models).registry.storageEstimate()).modelBytes,
  });
  // Fleet updates: releases this device is in the staged rollout of, when the data policy allows.
  void models
    .then(({ registry }) => autoUpdate(registry, new SavedCatalogs(globalThis.localStorage).list(), release.bucketFor, () => data.automaticAllowed))
    .then(() => lantern.refreshModels(), () => undefined);
  // No inference while the page is hidden: requests wait for the user to come back.
  pauseWhileHidden(lantern, document);
  return { lantern, pwa, models, metrics, metricsStore, memory, data, profile, release };
}
