import { openDB, type IDBPDatabase } from 'idb';
import { MetricsStateSchema, type MetricsAggregator, type MetricsState } from './aggregator.ts';

/**
 * Keeps the aggregator's state in IndexedDB across reloads: one record, rewritten at most every
 * `debounceMs` and when the page is hidden. Its size is bounded by the aggregator's limits, and
 * a save larger than `maxBytes` (which those limits should make impossible) is refused rather
 * than allowed to grow the database.
 */
const DB_NAME = 'lantern-metrics';
const STORE = 'state';
const KEY = 'aggregates';

export interface MetricsPersistenceOptions {
  debounceMs?: number;
  maxBytes?: number;
}

export class MetricsPersistence {
  private db?: Promise<IDBPDatabase>;
  private timer?: ReturnType<typeof setTimeout>;
  private unsubscribe?: () => void;
  private readonly debounceMs: number;
  readonly maxBytes: number;
  /** Why the last save or load failed, for the view; metrics never break classification. */
  lastError: string | null = null;

  constructor(private readonly aggregator: MetricsAggregator, options: MetricsPersistenceOptions = {}) {
    this.debounceMs = options.debounceMs ?? 2000;
    this.maxBytes = options.maxBytes ?? 4_000_000;
  }

  private open(): Promise<IDBPDatabase> {
    this.db ??= openDB(DB_NAME, 1, { upgrade: (db) => db.createObjectStore(STORE) });
    return this.db;
  }

  /** Restores the saved state (if any and valid), then saves after every change. */
  async start(): Promise<void> {
    try {
      const saved: unknown = await (await this.open()).get(STORE, KEY);
      const parsed = MetricsStateSchema.safeParse(saved);
      if (parsed.success) this.aggregator.load(parsed.data);
      else if (saved !== undefined) this.lastError = 'The saved metrics were unreadable and were discarded.';
    } catch (error) {
      this.lastError = `Metrics could not be loaded: ${(error as Error).message}`;
    }
    this.unsubscribe = this.aggregator.subscribe(() => this.schedule());
  }

  private schedule(): void {
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => void this.flush(), this.debounceMs);
  }

  /** Writes now (the page calls this when it is hidden). */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const state: MetricsState = this.aggregator.toJSON();
    const bytes = JSON.stringify(state).length;
    if (bytes > this.maxBytes) {
      this.lastError = `Metrics were not saved: ${bytes} bytes is over the ${this.maxBytes}-byte limit.`;
      return;
    }
    try {
      await (await this.open()).put(STORE, state, KEY);
      this.lastError = null;
    } catch (error) {
      this.lastError = `Metrics could not be saved: ${(error as Error).message}`;
    }
  }

  /** Forgets everything, in memory and on disk. */
  async clear(): Promise<void> {
    this.aggregator.reset();
    await this.flush();
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    if (this.timer !== undefined) await this.flush();
    (await this.db)?.close();
    this.db = undefined;
  }
}
