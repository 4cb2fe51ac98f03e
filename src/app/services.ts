import { Lantern } from '../runtime/index.ts';
import type { MetricsAggregator, MetricsPersistence } from '../runtime/metrics/index.ts';
import { openRegistry, type OpenedRegistry, StoreModelSource, autoRollback, goldenValidator, SavedCatalogs } from '../runtime/store/index.ts';
import { DataPolicy, type ConnectionInfo, runtimeDefaults, type DeviceHints, type RuntimeDefaults, pauseWhileHidden, loadChunk } from '../runtime/field/index.ts';
import { releaseControls, type ReleaseControls } from '../runtime/release/index.ts';
import { OfflineReadiness } from './offline-readiness.ts';
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
  /** The download for offline use; the inference worker waits for `offline.runtimeAllowed`. */
  offline: OfflineReadiness;
  /**
   * Aggregates of every request (never the inputs), persisted across reloads. Their code loads
   * after the first screen; records made before it arrives are applied in order once it has.
   */
  metrics: Promise<AppMetrics>;
  /** When models may be downloaded and updates checked (user choice + connection). */
  data: DataPolicy;
  /** Batch, thread and metrics-window defaults sized to this device. */
  profile: RuntimeDefaults;
  /** Per-model fallback and result-cache choices; shadow evaluation and its decisions. */
  release: ReleaseControls;
}

export interface AppMetrics {
  aggregator: MetricsAggregator;
  persistence: MetricsPersistence;
}

/** Chromium-only navigator fields (Network Information API, Device Memory API). */
type FieldNavigator = Navigator & DeviceHints & { connection?: ConnectionInfo & EventTarget };

const LAST_MODEL_KEY = 'lantern.lastModel';

function readLastModel(): string | undefined {
  try {
    return localStorage.getItem(LAST_MODEL_KEY) ?? undefined;
  } catch {
    return undefined; // Storage refused (private mode): nothing to preload.
  }
}

function saveLastModel(modelId: string | undefined): void {
  try {
    if (modelId) localStorage.setItem(LAST_MODEL_KEY, modelId);
  } catch {
    // Storage refused: the next start simply loads on first use.
  }
}

export function createServices(): Services {
  const params = new URLSearchParams(location.search);
  const nav = navigator as FieldNavigator;
  const profile = runtimeDefaults({ deviceMemory: nav.deviceMemory, hardwareConcurrency: nav.hardwareConcurrency });
  const data = new DataPolicy(globalThis.localStorage, nav.connection);
  // Golden sets run through the runtime created below (the gate runs long after start-up).
  const models = openRegistry(document.baseURI, { storage: navigator.storage, noticeStorage: globalThis.localStorage, mayDownload: () => data.automaticAllowed, validate: goldenValidator(() => lantern) });
  const metrics = loadChunk(() => import('../runtime/metrics/index.ts')).then(({ MetricsAggregator, MetricsPersistence }): AppMetrics => {
    const aggregator = new MetricsAggregator({ windowMs: profile.metricsWindowMs });
    const persistence = new MetricsPersistence(aggregator);
    void persistence.start();
    return { aggregator, persistence };
  });
  const source = new StoreModelSource(models.then((m) => m.registry));
  const release = releaseControls({
    runtime: () => lantern,
    registry: models.then((m) => m.registry),
    candidate: (id) => source.candidate(id),
    storage: globalThis.localStorage,
    hidden: () => document.visibilityState === 'hidden',
  });
  const watchVersions = autoRollback({ registry: models.then((m) => m.registry), source });
  const backlogWorkers = params.has('backlogWorkers') ? Number(params.get('backlogWorkers')) : profile.backlogWorkers;
  const lantern: Lantern = Lantern.create({
    models: source,
    backend: backendFromUrl(),
    idleMs: Number(params.get('idleMs') ?? 5 * 60_000),
    maxQueued: Number(params.get('maxQueued')) || profile.maxQueued,
    maxBatch: profile.maxBatch,
    ...(profile.threads ? { threads: profile.threads } : {}),
    ...(backlogWorkers !== undefined ? { backlogWorkers } : {}),
    policies: release.settings,
    onAnswer: release.observe,
    onRuntimeDownload: (loadedBytes) => offline.runtimeDownloaded(loadedBytes),
    onRecord: (record) => {
      // Metrics never hold classification up: until their code has loaded, records wait for it.
      void metrics.then(({ aggregator }) => aggregator.record(record));
      watchVersions.record(record);
      if (record.ok) lastModel = record.modelId;
    },
    onStuck: (versionKey) => watchVersions.stuck(versionKey),
  });
  const pwa = new PwaController();
  pwa.start();
  /**
   * What a first visit cut by a lost connection fetches again when it comes back: the shell, the
   * built-in models, then ORT, by loading the model used last (or the first one), which warms it.
   */
  const resume = async () => {
    const [, opened] = await Promise.all([pwa.resume(), models]);
    await opened.installMissingBuiltins();
    await offline.runtimeAllowed;
    const wanted = lastModel ?? (await lantern.models())[0]?.id;
    if (wanted) await lantern.load(wanted);
  };
  const offline = new OfflineReadiness({ registered: pwa.registered, models, data, plannedBackend: () => lantern.plannedBackend(), resume, base: document.baseURI });
  void offline.start();
  // The model used last is loaded while the app is idle after start-up: its first request is warm.
  let lastModel = readLastModel();
  if (lastModel && typeof requestIdleCallback === 'function') {
    const wanted = lastModel;
    // An optimisation only: if it fails, the first real request reports why.
    void offline.runtimeAllowed.then(() => requestIdleCallback(() => void lantern.load(wanted).catch(() => undefined)));
  }
  // Hidden is the last moment a page is reliably alive (mobile browsers kill without unload).
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState !== 'hidden') return;
    void metrics.then(({ persistence }) => persistence.flush(), () => undefined);
    saveLastModel(lastModel);
  });
  // Fleet updates: releases this device is in the staged rollout of, at start and again while the
  // app stays open (release/update-schedule.ts says when). Their code loads after the first
  // screen's (the initial JavaScript budget), or once back online if it could not (loadChunk).
  void loadChunk(() => import('../runtime/release/updates.ts')).then(({ autoUpdate, keepUpdating }) => keepUpdating({
    update: async () => {
      await autoUpdate(await models, new SavedCatalogs(globalThis.localStorage).list(), release.bucketFor, () => data.automaticAllowed);
    },
    mayDownload: () => data.automaticAllowed,
    doc: document,
    win: globalThis,
    policyChanged: (listener) => data.subscribe(listener),
  }));
  // No inference while the page is hidden: requests wait for the user to come back.
  pauseWhileHidden(lantern, document);
  return { lantern, pwa, offline, models, metrics, data, profile, release };
}
