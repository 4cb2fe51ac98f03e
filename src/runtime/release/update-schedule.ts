/**
 * When the automatic-update step (auto-update.ts) runs. Field devices keep the installed app open
 * for days, so a rollout raised after start-up must still reach them: the step runs at start,
 * when the page is shown again, when the connection comes back, when the data policy changes
 * (back on Wi-Fi, or the user allowed downloads) and on a timer while the page stays visible.
 * Whatever the trigger, the same gate applies (one place for the rule, `check` below): never while
 * a run is going, never while the page is hidden (no battery or data spent unseen), never without
 * the data policy's consent, and at most once per `everyMs` after a run that read the catalogs.
 * A run that could not read any catalog (offline, server down) does not count, so the next
 * trigger tries again.
 *
 * No catalog states a refresh cadence and the app shell checks for a new app version only when
 * the page is shown again (pwa.ts); six hours lets a fleet's devices follow a rollout within the
 * working day without fetching catalogs on every glance at the phone.
 */
export const UPDATE_EVERY_MS = 6 * 60 * 60_000;

/** How often the timer asks (the gate decides): a page never hidden still updates within everyMs + this. */
const TICK_MS = 30 * 60_000;

interface Events {
  addEventListener(type: string, listener: () => void): void;
  removeEventListener(type: string, listener: () => void): void;
}

export interface UpdateScheduleDeps {
  /** One automatic-update pass; rejects when no catalog could be read. */
  update(): Promise<unknown>;
  /** The data policy allows background downloads now. */
  mayDownload(): boolean;
  /** The document ('visibilitychange', `visibilityState`). */
  doc: Events & { readonly visibilityState: DocumentVisibilityState };
  /** The window ('online'). */
  win: Events;
  /** Subscribes to data-policy changes (DataPolicy.subscribe); returns the unsubscribe. */
  policyChanged(listener: () => void): () => void;
  everyMs?: number;
}

/** Starts the schedule (the first check runs now); returns a function that stops it. */
export function keepUpdating(deps: UpdateScheduleDeps): () => void {
  const everyMs = deps.everyMs ?? UPDATE_EVERY_MS;
  let running = false;
  let lastRun: number | undefined;
  const check = () => {
    if (running || deps.doc.visibilityState === 'hidden' || !deps.mayDownload()) return;
    const startedAt = Date.now();
    if (lastRun !== undefined && startedAt - lastRun < everyMs) return;
    running = true;
    // Async even when `update` throws at once: `running` is always cleared.
    void (async () => {
      try {
        await deps.update();
        lastRun = startedAt;
      } catch {
        // No catalog could be read: not counted, the next trigger tries again.
      } finally {
        running = false;
      }
    })();
  };
  deps.doc.addEventListener('visibilitychange', check);
  deps.win.addEventListener('online', check);
  const unsubscribe = deps.policyChanged(check);
  const timer = setInterval(check, TICK_MS);
  check();
  return () => {
    deps.doc.removeEventListener('visibilitychange', check);
    deps.win.removeEventListener('online', check);
    unsubscribe();
    clearInterval(timer);
  };
}
