import { NetworkError } from '../errors.ts';

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

/**
 * Loads split-off code that a user's action needs now (an install, a bundle, a share). A load that
 * fails (offline before the service worker kept the code) is a NetworkError, which the user is told
 * to answer by checking the connection and trying again, as for the download it comes with; a raw
 * TypeError would read as an internal fault. Not remembered: the next action loads it again.
 */
export function importForAction<T>(load: () => Promise<T>): Promise<T> {
  return load().catch((cause: unknown) => {
    throw new NetworkError('The code for this action could not be loaded; check the connection and try again.', {}, { cause });
  });
}
