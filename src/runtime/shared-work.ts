import { cancelledBy } from './errors.ts';

export interface JoinOptions<P> {
  /** This caller's cancellation: it leaves at once; the work goes on while another caller waits. */
  signal?: AbortSignal | undefined;
  /** This caller's progress listener; every caller still waiting hears the shared work's progress. */
  onProgress?: ((progress: P) => void) | undefined;
}

interface Run<T, P> {
  promise: Promise<T>;
  controller: AbortController;
  listeners: Set<(progress: P) => void>;
  waiters: number;
}

/**
 * Work that every caller asking for the same key while it runs shares (one install of a model,
 * one session load), where each caller keeps its own cancellation. Sharing a promise made with
 * the first caller's signal would tie every caller to it: one cancel would fail them all, and a
 * later caller could not leave before the first one's work ended. Here a caller whose signal
 * aborts leaves at once with CancelledError, and the work's own signal aborts only when every
 * caller has left (so an install nobody waits for stops downloading).
 */
export class SharedWork<T, P = never> {
  private readonly runs = new Map<string, Run<T, P>>();

  /** Whether work for `key` is running now (a caller would join it rather than start it). */
  has(key: string): boolean {
    return this.runs.has(key);
  }

  join(key: string, start: (signal: AbortSignal, onProgress: (progress: P) => void) => Promise<T>, options: JoinOptions<P> = {}): Promise<T> {
    const { signal, onProgress } = options;
    if (signal?.aborted) return Promise.reject(cancelledBy(signal));
    const run = this.runs.get(key) ?? this.start(key, start);
    run.waiters++;
    if (onProgress) run.listeners.add(onProgress);
    return new Promise<T>((resolve, reject) => {
      let left = false;
      const leave = () => {
        if (left) return false;
        left = true;
        run.waiters--;
        if (onProgress) run.listeners.delete(onProgress);
        signal?.removeEventListener('abort', onAbort);
        return true;
      };
      const onAbort = () => {
        if (!leave()) return;
        if (run.waiters === 0) {
          // Nobody waits any more: the next caller starts afresh instead of joining a cancelled run.
          this.forget(key, run);
          run.controller.abort();
        }
        reject(cancelledBy(signal));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      run.promise.then(
        (value) => leave() && resolve(value),
        (error: unknown) => leave() && reject(error),
      );
    });
  }

  private start(key: string, start: (signal: AbortSignal, onProgress: (progress: P) => void) => Promise<T>): Run<T, P> {
    const controller = new AbortController();
    const listeners = new Set<(progress: P) => void>();
    const run: Run<T, P> = { controller, listeners, waiters: 0, promise: Promise.resolve() as Promise<T> };
    // Started after the first caller has joined, so it hears progress from the first step. A
    // copy of the listeners: one may leave while being called.
    const notify = (progress: P) => [...listeners].forEach((listener) => listener(progress));
    run.promise = Promise.resolve().then(() => start(controller.signal, notify));
    this.runs.set(key, run);
    const forget = () => this.forget(key, run);
    run.promise.then(forget, forget);
    return run;
  }

  private forget(key: string, run: Run<T, P>): void {
    if (this.runs.get(key) === run) this.runs.delete(key);
  }
}
