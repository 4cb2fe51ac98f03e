import { Listeners } from '../listeners.ts';

/**
 * When Lantern may spend the user's data. The user's choice comes first; the browser's
 * Network Information API (Chromium only: `navigator.connection`) refines it where present.
 * Browsers without it are treated as unmetered: we cannot know, and nagging on every
 * download would teach users to click through the confirmation.
 */
export type DataPreference = 'wifi-only' | 'any' | 'never';
export const DATA_PREFERENCES: readonly DataPreference[] = ['wifi-only', 'any', 'never'];
const DEFAULT_PREFERENCE: DataPreference = 'wifi-only';

/** The subset of NetworkInformation we read; every field is optional in the wild. */
export interface ConnectionInfo {
  type?: string;
  effectiveType?: string;
  saveData?: boolean;
  /** Non-standard (older spec drafts, some WebViews). */
  metered?: boolean;
}

export interface ConnectionState {
  /** True when the connection costs money or the user asked to save data. */
  metered: boolean;
  saveData: boolean;
  /** True only when the browser says it is Wi-Fi or wired. */
  unmeteredKnown: boolean;
}

const UNMETERED_TYPES = new Set(['wifi', 'ethernet']);
const METERED_TYPES = new Set(['cellular', 'wimax', 'bluetooth']);

export function connectionState(connection: ConnectionInfo | undefined): ConnectionState {
  const saveData = connection?.saveData === true;
  const type = connection?.type;
  const metered = saveData || connection?.metered === true || (type !== undefined && METERED_TYPES.has(type))
    // A slow effective type without a type (Android WebViews) is almost always mobile data.
    || (type === undefined && (connection?.effectiveType === '2g' || connection?.effectiveType === 'slow-2g'));
  return { metered, saveData, unmeteredKnown: !metered && type !== undefined && UNMETERED_TYPES.has(type) };
}

/** Whether background work (update checks, automatic downloads) may use the network now. */
export function mayFetchAutomatically(preference: DataPreference, state: ConnectionState): boolean {
  if (preference === 'never' || state.saveData) return false;
  if (preference === 'wifi-only') return !state.metered;
  return true;
}

/** A download the user asked for: allowed, but confirmed first when it costs data. */
export function needsConfirmation(state: ConnectionState): boolean {
  return state.metered;
}

export function parsePreference(value: string | null | undefined): DataPreference {
  return DATA_PREFERENCES.find((p) => p === value) ?? DEFAULT_PREFERENCE;
}

interface StorageLike {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}
interface ConnectionTarget extends ConnectionInfo {
  addEventListener?(type: 'change', listener: () => void): void;
  removeEventListener?(type: 'change', listener: () => void): void;
}

const KEY = 'lantern.dataPreference';

/** The persisted preference plus the live connection, with change notifications. */
export class DataPolicy {
  private readonly listeners = new Listeners();
  preference: DataPreference;

  constructor(
    private readonly storage: StorageLike | undefined,
    private readonly connection: ConnectionTarget | undefined,
  ) {
    this.preference = parsePreference(readSafely(storage, KEY));
    // The OS switching between Wi-Fi and mobile data fires 'change'.
    connection?.addEventListener?.('change', () => this.notify());
  }

  get state(): ConnectionState {
    return connectionState(this.connection);
  }

  get automaticAllowed(): boolean {
    return mayFetchAutomatically(this.preference, this.state);
  }

  get confirmDownloads(): boolean {
    return needsConfirmation(this.state);
  }

  setPreference(preference: DataPreference): void {
    this.preference = preference;
    try {
      this.storage?.setItem(KEY, preference);
    } catch {
      // Private mode or a full quota: the choice still holds for this session.
    }
    this.notify();
  }

  subscribe(listener: () => void): () => void {
    return this.listeners.subscribe(listener);
  }

  private notify(): void {
    this.listeners.notify();
  }
}

function readSafely(storage: StorageLike | undefined, key: string): string | null {
  try {
    return storage?.getItem(key) ?? null;
  } catch {
    return null;
  }
}
