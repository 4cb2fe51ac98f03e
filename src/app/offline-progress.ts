import type { Backend } from '../runtime/index.ts';
import type { OfflineFiles, SizedFile } from './offline-files.ts';
import { formatBytes } from './format.ts';
import { t } from './i18n/index.ts';

/**
 * How far a device is from "ready to work offline", in bytes: pure functions over the build's
 * list of what must be stored (offline-files.ts) and a snapshot of what is (offline-readiness.ts).
 */

/** What is stored now. Paths are URL pathnames, so they compare with the list's resolved URLs. */
export interface StoredSnapshot {
  /** A service worker is active: its install, and so its precache, completed. */
  shellActive: boolean;
  /** Every request URL's pathname in Cache Storage (workbox's precache and the ORT cache). */
  cachedPaths: ReadonlySet<string>;
  /** Every built-in model was installed once (a model the user removed since counts: their choice). */
  modelsInstalled: boolean;
  /** Bytes in the model store (built-ins being installed, or installed). */
  modelBytes: number;
  /** Decoded bytes of ORT's wasm arriving in the worker (Lantern's onRuntimeDownload), before it is kept. */
  runtimeBytes: number;
}

export interface OfflineProgress {
  stored: number;
  total: number;
  /** The ORT build this device uses is in the cache: the big download is done. */
  runtimeStored: boolean;
  ready: boolean;
}

const sum = (files: readonly { size: number }[]) => files.reduce((total, file) => total + file.size, 0);

export function offlineProgress(files: OfflineFiles, build: Backend, stored: StoredSnapshot, base: string): OfflineProgress {
  const isCached = (file: SizedFile) => stored.cachedPaths.has(new URL(file.url, base).pathname);
  const shell = stored.shellActive ? sum(files.precache) : sum(files.precache.filter(isCached));
  const ort = files.ort[build];
  const runtimeStored = ort.every(isCached);
  // A file on its way counts its share of the wire size, from the decoded bytes arrived so far.
  const arriving = (file: SizedFile) => (file.storedSize ? Math.min(file.size, Math.round((file.size * stored.runtimeBytes) / file.storedSize)) : 0);
  const modelTotal = sum(files.models);
  const models = stored.modelsInstalled ? modelTotal : Math.min(stored.modelBytes, modelTotal);
  return {
    stored: shell + ort.reduce((total, file) => total + (isCached(file) ? file.size : arriving(file)), 0) + models,
    total: sum(files.precache) + sum(ort) + modelTotal,
    runtimeStored,
    ready: stored.shellActive && runtimeStored && stored.modelsInstalled,
  };
}

export type OfflinePhase = 'ask' | 'downloading' | 'ready';

/**
 * On a connection that costs money (the data policy's `confirmDownloads`, the same rule the
 * Models screen asks by) the big download waits for the user's yes; once it is stored, or
 * accepted, the rest just finishes.
 */
export function offlinePhase(progress: OfflineProgress, confirmDownloads: boolean, accepted: boolean): OfflinePhase {
  if (progress.ready) return 'ready';
  return confirmDownloads && !accepted && !progress.runtimeStored ? 'ask' : 'downloading';
}

/** "Downloading for offline use: 1.2 MB of 15.3 MB", in the current language. */
export function downloadingText(progress: Pick<OfflineProgress, 'stored' | 'total'>): string {
  return t('offline.downloading', { done: formatBytes(progress.stored), total: formatBytes(progress.total) });
}
