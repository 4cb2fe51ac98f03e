/**
 * Loads a chunk of the app's own code that is split off the first screen. Offline before the
 * service worker keeps it (a first visit cut short, a browser without service workers), the load
 * fails; it is tried again each time the browser is back online (a failed module is fetched again,
 * whatwg/html#10327), so the feature starts late rather than staying off for the page's life.
 * The promise never rejects: a chunk that cannot load (an app update removed it) stays pending.
 */
export function loadChunk<T>(load: () => Promise<T>, online: Pick<EventTarget, 'addEventListener'> = globalThis): Promise<T> {
  return load().catch(() => new Promise<T>((resolve) => online.addEventListener('online', () => resolve(loadChunk(load, online)), { once: true })));
}
