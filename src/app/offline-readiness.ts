import { Listeners, type Backend } from '../runtime/index.ts';
import type { DataPolicy } from '../runtime/field/index.ts';
import type { ModelRegistry, OpenedRegistry } from '../runtime/store/index.ts';
import { OFFLINE_FILES, parseOfflineFiles, type OfflineFiles } from './offline-files.ts';
import { offlinePhase, offlineProgress, type OfflinePhase, type StoredSnapshot } from './offline-progress.ts';
import { StallRetry } from './stall-retry.ts';

/**
 * Whether this device has everything it needs to work offline, and how far the first visit's
 * download is: the app shell (service worker precache), the ORT build this device uses (cached by
 * the inference worker, workers/ort-offline.ts) and the built-in models (IndexedDB).
 *
 * On a connection that costs money the inference worker, whose start downloads ORT (the bulk of
 * it), waits for the user's yes: `runtimeAllowed`. Classifying before that still works; the user
 * asked for it, and was told the size.
 */
export type OfflineState =
  /** Not known yet, or never: no service worker (development build, refused): nothing to show. */
  | { phase: 'checking' | 'unavailable' }
  | { phase: Exclude<OfflinePhase, 'ready'>; stored: number; total: number }
  /** `justFinished`: the download completed during this visit (a later visit shows no message). */
  | { phase: 'ready'; justFinished: boolean };

export interface OfflineReadinessDeps {
  /** PwaController.registered. */
  registered: Promise<ServiceWorkerRegistration | undefined>;
  models: Promise<OpenedRegistry>;
  data: DataPolicy;
  /** Which ORT build this device will use, without downloading it (Lantern.plannedBackend). */
  plannedBackend: () => Promise<Backend>;
  /**
   * Fetches again what a lost connection or a failed request cut short (the shell's precache, the
   * built-in models, ORT): called when the connection comes back, or when the download stalls
   * online (stall-retry.ts), while it is not done.
   */
  resume: () => Promise<void>;
  base: string;
}

/**
 * Cache Storage has no change event, and the page sees neither the service worker's precache
 * fetches nor the worker's ORT download: what is stored is re-read at this interval while the
 * download lasts (and never again once ready). ORT's wasm counts as the worker reports it
 * arriving (runtimeDownloaded), then whole once it is in the cache. The built-in models' install
 * finishing and the service worker's activation are events, and trigger a re-read at once.
 */
const POLL_MS = 1000;

export class OfflineReadiness {
  private state: OfflineState = { phase: 'checking' };
  private readonly listeners = new Listeners<[OfflineState]>();
  private accepted = false;
  private registry?: ModelRegistry;
  private measuring = 0;
  private readonly stops: (() => void)[] = [];
  private readonly stall = new StallRetry();
  private resuming = false;
  /** Decoded bytes of ORT's wasm the worker has received so far (Lantern's onRuntimeDownload). */
  private runtimeBytes = 0;
  private allowRuntime!: () => void;
  /** Resolves when the inference worker may start; at once unless the connection costs money. */
  readonly runtimeAllowed = new Promise<void>((resolve) => (this.allowRuntime = resolve));

  constructor(private readonly deps: OfflineReadinessDeps) {
    if (!deps.data.confirmDownloads) this.allowRuntime();
  }

  async start(): Promise<void> {
    const registration = await this.deps.registered;
    const files = registration && await this.fetchFiles();
    if (!registration || !files) {
      this.allowRuntime();
      this.set({ phase: 'unavailable' });
      return;
    }
    const build = await this.deps.plannedBackend();
    const measure = () => void this.measure(registration, files, build);
    this.stops.push(this.deps.data.subscribe(measure));
    void navigator.serviceWorker.ready.then(measure);
    this.deps.models.then((opened) => {
      this.registry = opened.registry;
      measure();
    }, () => undefined);
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') measure();
    }, POLL_MS);
    this.stops.push(() => clearInterval(timer));
    // Nothing else retries a download that a lost connection failed: the first visit resumes when it comes back.
    const resume = () => this.tryAgain(measure);
    addEventListener('online', resume);
    this.stops.push(() => removeEventListener('online', resume));
    await this.measure(registration, files, build);
  }

  /** Resumes the download (one attempt at a time), then reads how far it is. */
  private tryAgain(measure: () => void): void {
    if (this.resuming) return;
    this.resuming = true;
    void this.deps.resume().catch(() => undefined).then(() => {
      this.resuming = false;
      measure();
    });
  }

  /**
   * ORT's wasm arriving in the worker: counted at the next reading (within POLL_MS), so the
   * figure moves during what is most of a first visit's download instead of jumping at its end.
   * The most any worker reported: a second worker's download, or a retry's, never moves it back.
   */
  runtimeDownloaded(loadedBytes: number): void {
    this.runtimeBytes = Math.max(this.runtimeBytes, loadedBytes);
  }

  /** The user accepted the download on a metered connection. */
  accept(): void {
    this.accepted = true;
    this.allowRuntime();
    if (this.state.phase === 'ask') this.set({ ...this.state, phase: 'downloading' });
  }

  /** Calls `listener` with the current state now and with every change. */
  subscribe(listener: (state: OfflineState) => void): () => void {
    listener(this.state);
    return this.listeners.subscribe(listener);
  }

  private async fetchFiles(): Promise<OfflineFiles | undefined> {
    try {
      const response = await fetch(new URL(OFFLINE_FILES, this.deps.base));
      return response.ok ? parseOfflineFiles(await response.json()) : undefined;
    } catch {
      return undefined; // Offline with no service worker copy: nothing to tell.
    }
  }

  private async measure(registration: ServiceWorkerRegistration, files: OfflineFiles, build: Backend): Promise<void> {
    if (this.state.phase === 'ready') return;
    // Only the newest reading counts: a slow one must not overwrite a later one.
    const reading = ++this.measuring;
    // The registration of the start, or the one a resume made after its first install failed.
    const current = await navigator.serviceWorker.getRegistration().catch(() => undefined) ?? registration;
    const [cachedPaths, models] = await Promise.all([cachedPathnames(), this.modelSnapshot(files)]);
    if (reading !== this.measuring) return;
    const progress = offlineProgress(files, build, { shellActive: Boolean(current.active), cachedPaths, ...models, runtimeBytes: this.runtimeBytes }, this.deps.base);
    const phase = offlinePhase(progress, this.deps.data.confirmDownloads, this.accepted);
    if (phase !== 'ask') this.allowRuntime();
    // The model store opens only once the built-ins are checked (a network round trip when online;
    // on a device with models, at most NETWORK_WAIT_MS).
    // With the shell and ORT stored this is almost surely a later visit: show nothing meanwhile
    // rather than a download that is not happening.
    if (!this.registry && progress.runtimeStored && current.active) return;
    if (phase === 'ready') {
      for (const stop of this.stops.splice(0)) stop();
      this.set({ phase, justFinished: this.state.phase !== 'checking' });
    } else {
      this.set({ phase, stored: progress.stored, total: progress.total });
      if (phase === 'downloading' && navigator.onLine && this.stall.due(progress.stored)) this.tryAgain(() => void this.measure(registration, files, build));
    }
  }

  /** Built-ins count once installBuiltins is done with them (the registry opens after that). */
  private async modelSnapshot(files: OfflineFiles): Promise<Pick<StoredSnapshot, 'modelsInstalled' | 'modelBytes'>> {
    if (!this.registry) return { modelsInstalled: false, modelBytes: 0 };
    const [overview, { modelBytes }] = await Promise.all([this.registry.overview(), this.registry.storageEstimate()]);
    // The same test installBuiltins makes: a model with a highest sequence was installed once.
    const settled = new Set(overview.filter((m) => m.highestSequence !== undefined).map((m) => m.id));
    return { modelsInstalled: files.models.every((m) => settled.has(m.id)), modelBytes };
  }

  private set(state: OfflineState): void {
    const same = JSON.stringify(state) === JSON.stringify(this.state);
    this.state = state;
    if (!same) this.listeners.notify(state);
  }
}

/** Pathnames of every request in Cache Storage (workbox's precache, the ORT cache). */
async function cachedPathnames(): Promise<Set<string>> {
  const paths = new Set<string>();
  for (const name of await caches.keys()) {
    for (const request of await (await caches.open(name)).keys()) paths.add(new URL(request.url).pathname);
  }
  return paths;
}
