/**
 * When a first visit's download that stopped short is tried again on a connection that stays up.
 * The 'online' event covers a connection that was lost; a request dropped by a weak link, or a
 * server that failed once, fires nothing, and would leave a first visit without its models until
 * a reload. So a download that has stored nothing new for a while is resumed; each attempt that
 * brings nothing doubles the wait (a server that is down is not hammered), and progress resets it.
 * An attempt while the download is merely slow costs the built-in catalog's two small files:
 * what is in flight is joined, never fetched twice (installs and model loads are shared).
 */
export const FIRST_RETRY_MS = 15_000;
export const LONGEST_RETRY_MS = 5 * 60_000;

export class StallRetry {
  private stored = -1;
  private since: number;
  private waitMs = FIRST_RETRY_MS;

  constructor(private readonly now: () => number = Date.now) {
    this.since = now();
  }

  /** Given what is stored now (bytes), whether to try again now; a yes counts as an attempt. */
  due(stored: number): boolean {
    const now = this.now();
    if (stored !== this.stored) {
      this.stored = stored;
      this.since = now;
      this.waitMs = FIRST_RETRY_MS;
      return false;
    }
    if (now - this.since < this.waitMs) return false;
    this.since = now;
    this.waitMs = Math.min(this.waitMs * 2, LONGEST_RETRY_MS);
    return true;
  }
}
