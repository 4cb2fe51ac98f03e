import { Listeners } from '../listeners.ts';
import type { WasmMemoryReading } from '../protocol.ts';

/**
 * Samples memory figures the browser offers, and says which it does not instead of hiding
 * the gap. The cheap figures are sampled often; measureUserAgentSpecificMemory (the only one
 * that covers workers, but slow) only when cross-origin isolated, rarely, one at a time, and
 * never while the page is hidden.
 *
 * Why it is slow (measured in Chromium 156): each worker is asked for its figure on its own
 * event loop, and ORT's WASM threads (pthread workers running a thread pool) never return to
 * theirs, so with 2 or more threads every measurement ends on Chromium's 60 s per-worker
 * timeout (the answer then lacks those threads' small JS heaps; the shared WASM memory is
 * counted with the inference worker). With one thread it answers in ≈50 ms under
 * --enable-blink-features=ForceEagerMeasureMemory, or at the next GC (10–20 s) without it.
 * So the first measurement starts as soon as sampling starts, and the figure carries its time.
 */
export type Unavailable = 'unsupported' | 'not-isolated' | 'pending' | 'no-worker' | 'starting' | 'failed';
export type Figure = { bytes: number } | { bytes: null; reason: Unavailable };

export interface MemoryReport {
  sampledAt: number;
  /** performance.memory (Chromium only; coarse unless cross-origin isolated). */
  jsHeapUsed: Figure;
  jsHeapLimit: Figure;
  /** ORT's WebAssembly memory, summed over running workers. */
  workerWasm: Figure;
  /** Bytes of the model files (the models' declared sizes). */
  modelBytes: Figure;
  storageUsage: Figure;
  storageQuota: Figure;
  /** performance.measureUserAgentSpecificMemory(): the page and its workers. */
  userAgentSpecific: Figure & { measuredAt?: number };
}

export interface MemoryEnvironment {
  performance: { memory?: { usedJSHeapSize: number; jsHeapSizeLimit: number }; measureUserAgentSpecificMemory?: () => Promise<{ bytes: number }> };
  storage?: { estimate?: () => Promise<{ usage?: number; quota?: number }> };
  crossOriginIsolated: boolean;
  isHidden: () => boolean;
}

export interface MemorySources {
  /** One reading per running worker. An empty list means no worker runs. */
  workerWasm: () => Promise<WasmMemoryReading[]>;
  modelBytes: () => Promise<number | null>;
}

export interface MemorySamplerOptions {
  intervalMs?: number;
  uaFirstDelayMs?: number;
  uaIntervalMs?: number;
  /** Recent samples kept for the chart. */
  historyLength?: number;
  env?: MemoryEnvironment;
}

function browserEnvironment(): MemoryEnvironment {
  return {
    performance: performance as MemoryEnvironment['performance'],
    storage: navigator.storage,
    crossOriginIsolated: globalThis.crossOriginIsolated === true,
    isHidden: () => typeof document !== 'undefined' && document.visibilityState === 'hidden',
  };
}

const figure = (bytes: number | null | undefined, reason: Unavailable): Figure =>
  typeof bytes === 'number' && Number.isFinite(bytes) ? { bytes } : { bytes: null, reason };

export class MemorySampler {
  private readonly env: MemoryEnvironment;
  private readonly intervalMs: number;
  private readonly uaFirstDelayMs: number;
  private readonly uaIntervalMs: number;
  private readonly historyLength: number;
  private timer?: ReturnType<typeof setInterval>;
  private uaTimer?: ReturnType<typeof setTimeout>;
  private ua: MemoryReport['userAgentSpecific'];
  private uaRunning = false;
  private readonly listeners = new Listeners();
  latest?: MemoryReport;
  readonly history: { at: number; jsHeapUsed: number | null; workerWasm: number | null }[] = [];

  constructor(private readonly sources: MemorySources, options: MemorySamplerOptions = {}) {
    this.env = options.env ?? browserEnvironment();
    this.intervalMs = options.intervalMs ?? 5000;
    this.uaFirstDelayMs = options.uaFirstDelayMs ?? 0;
    this.uaIntervalMs = options.uaIntervalMs ?? 5 * 60_000;
    this.historyLength = options.historyLength ?? 120;
    this.ua = this.uaSupport() ?? { bytes: null, reason: 'pending' };
  }

  /** Why measureUserAgentSpecificMemory cannot run here, or undefined when it can. */
  private uaSupport(): Figure | undefined {
    if (typeof this.env.performance.measureUserAgentSpecificMemory !== 'function') return { bytes: null, reason: 'unsupported' };
    if (!this.env.crossOriginIsolated) return { bytes: null, reason: 'not-isolated' };
    return undefined;
  }

  subscribe(listener: () => void): () => void {
    return this.listeners.subscribe(listener);
  }

  start(): void {
    if (this.timer !== undefined) return;
    void this.sample();
    this.timer = setInterval(() => {
      if (!this.env.isHidden()) void this.sample();
    }, this.intervalMs);
    if (!this.uaSupport()) this.scheduleUa(this.uaFirstDelayMs);
  }

  stop(): void {
    clearInterval(this.timer);
    clearTimeout(this.uaTimer);
    this.timer = undefined;
  }

  private scheduleUa(delayMs: number): void {
    this.uaTimer = setTimeout(() => void this.measureUa(), delayMs);
  }

  /**
   * One measurement at a time (stopping and restarting, as the Metrics screen does, must not
   * start a second one); a hidden page postpones it rather than paying for it.
   */
  async measureUa(): Promise<void> {
    const measure = this.env.performance.measureUserAgentSpecificMemory;
    if (!measure || this.uaSupport() || this.uaRunning) return;
    if (this.env.isHidden()) return this.scheduleUa(this.uaIntervalMs);
    this.uaRunning = true;
    try {
      const result = await measure.call(this.env.performance);
      this.ua = { bytes: result.bytes, measuredAt: Date.now() };
    } catch {
      this.ua = { bytes: null, reason: 'failed' };
    } finally {
      this.uaRunning = false;
    }
    if (this.timer !== undefined) this.scheduleUa(this.uaIntervalMs);
    await this.sample();
  }

  async sample(): Promise<MemoryReport> {
    const heap = this.env.performance.memory;
    const [wasm, models, estimate] = await Promise.all([
      this.sources.workerWasm().catch(() => null),
      this.sources.modelBytes().catch(() => null),
      this.env.storage?.estimate ? this.env.storage.estimate().catch(() => null) : Promise.resolve(undefined),
    ]);
    const seen = wasm?.filter((b) => typeof b === 'number') ?? [];
    const workerWasm: Figure = wasm === null ? { bytes: null, reason: 'failed' }
      : wasm.length === 0 ? { bytes: null, reason: 'no-worker' }
      : seen.length > 0 ? { bytes: seen.reduce((a, b) => a + b, 0) }
      : wasm.includes('starting') ? { bytes: null, reason: 'starting' }
      : { bytes: null, reason: 'unsupported' };
    const storageReason: Unavailable = estimate === undefined ? 'unsupported' : 'failed';
    const report: MemoryReport = {
      sampledAt: Date.now(),
      jsHeapUsed: figure(heap?.usedJSHeapSize, 'unsupported'),
      jsHeapLimit: figure(heap?.jsHeapSizeLimit, 'unsupported'),
      workerWasm,
      modelBytes: figure(models, 'failed'),
      storageUsage: figure(estimate?.usage, storageReason),
      storageQuota: figure(estimate?.quota, storageReason),
      userAgentSpecific: this.ua,
    };
    this.latest = report;
    this.history.push({ at: report.sampledAt, jsHeapUsed: report.jsHeapUsed.bytes, workerWasm: report.workerWasm.bytes });
    if (this.history.length > this.historyLength) this.history.splice(0, this.history.length - this.historyLength);
    this.listeners.notify();
    return report;
  }
}
