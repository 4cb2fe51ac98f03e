import { CancelledError, LanternError, NetworkError, SignatureError, ValidationError } from '../errors.ts';
import { isAcceptableModelOrigin } from './secure-origin.mjs';

/**
 * The one way the runtime fetches anything (catalogs, manifests, signatures, configuration,
 * chunks). Every request:
 * - is checked against the allowed origins before it is sent, and its final URL after any
 *   redirect is checked again (a 302 to another host is refused, not trusted);
 * - is watched: when no byte arrives for `stallMs` (headers or body), or less than
 *   MIN_BYTES_PER_STALL of the body does, it fails with a
 *   `NetworkError` marked retryable, which the downloader turns into a resume;
 * - reads its body as a stream that stops at a byte limit, so a hostile server cannot make the
 *   device buffer more than the caller expects (a chunk is cut at its signed size).
 * The CSP's connect-src is the browser's own second line behind the origin checks.
 */

/** Largest bodies accepted for the small signed or configuration documents (SECURITY.md). */
export const DOCUMENT_LIMITS = {
  manifest: 4 * 1024 * 1024,
  signature: 64 * 1024,
  catalog: 1024 * 1024,
  configuration: 256 * 1024,
} as const;

/** No byte for this long means the connection is dead, however slow the link. */
const DEFAULT_STALL_MS = 30_000;
/**
 * Fewer bytes than this within one stall time is a stall too (TUF's slow retrieval): a server
 * dripping a byte now and then must not hold a download, and the model's install slot, for
 * days. 16 KiB in 30 s is ~550 B/s, a tenth of what a 2G (GPRS) link carries.
 */
const MIN_BYTES_PER_STALL = 16 * 1024;

/**
 * Which origins the registry may fetch from: the app's own plus those the deployment lists.
 * A listed origin must be `https:`, or `http:` on loopback (a publisher testing with
 * `model:serve`): a plain-HTTP mirror elsewhere could be rewritten in transit.
 */
export class OriginPolicy {
  private readonly allowed: Set<string>;
  constructor(readonly selfOrigin: string, extra: readonly string[] = []) {
    const origins = extra.map((o) => new URL(o).origin);
    const insecure = origins.find((o) => !isAcceptableModelOrigin(o));
    if (insecure) throw new ValidationError('An allowed model origin must use https (plain http only on this device).', { origin: insecure });
    this.allowed = new Set([selfOrigin, ...origins]);
  }

  check(url: string): string {
    const parsed = new URL(url);
    if (!this.allowed.has(parsed.origin)) {
      throw new NetworkError('This address is not an allowed model source; add its origin to the registry configuration.', { origin: parsed.origin });
    }
    return parsed.href;
  }
}

export interface NetContext {
  policy: OriginPolicy;
  fetch: typeof fetch;
  /** Silence (no headers, no body bytes) after which a request fails; default 30 s. */
  stallMs?: number;
}

export interface NetRequest {
  url: string;
  /** Names the resource in messages, e.g. "the release manifest". Never user input. */
  what: string;
  headers?: Record<string, string>;
  cache?: RequestCache;
  signal?: AbortSignal;
  /** Extra error details (file, chunk...) for every error of this request. */
  where?: Record<string, string | number>;
}

/** Statuses worth another try: the server is briefly unwell or asks us to slow down. */
const isTransientStatus = (status: number) => status === 408 || status === 429 || status >= 500;

/** A response whose body can only be read through a limit and the stall watchdog. */
export class GuardedResponse {
  constructor(
    private readonly response: Response,
    private readonly watchdog: Watchdog,
    private readonly request: NetRequest,
  ) {}

  get status(): number { return this.response.status; }
  get ok(): boolean { return this.response.ok; }
  get headers(): Headers { return this.response.headers; }

  /**
   * A web page where a file was asked for: what a server that answers every path it does not
   * have with the app's page sends for a missing file (Vite's dev server, many static hosts'
   * single-page fallback), with status 200; or a captive portal's login page.
   */
  get isWebPage(): boolean { return /text\/html/i.test(this.response.headers.get('Content-Type') ?? ''); }

  /** The NetworkError for a status the caller does not handle; 408/429/5xx are retryable. */
  statusError(): NetworkError {
    const { status } = this.response;
    return new NetworkError(`${capitalise(this.request.what)} could not be fetched (HTTP ${status}).`, { ...this.request.where, status, retryable: isTransientStatus(status) });
  }

  /** Drops the body unread (an error status, an unwanted response). */
  discard(): void {
    this.watchdog.stop();
    void this.response.body?.cancel().catch(() => undefined);
  }

  /**
   * Reads the body, at most `limit` bytes: past it, reading stops and `tooLarge()` is thrown
   * (a Content-Length over the limit is refused before any byte is read). `onBytes` hears the
   * running total after each piece (download progress).
   */
  async read(limit: number, tooLarge: () => LanternError, onBytes?: (total: number) => void): Promise<Uint8Array> {
    const { response, watchdog } = this;
    const declared = Number(response.headers.get('Content-Length') ?? NaN);
    if (declared > limit) {
      this.discard();
      throw tooLarge();
    }
    const reader = response.body?.getReader();
    if (!reader) {
      watchdog.stop();
      return new Uint8Array(0);
    }
    const parts: Uint8Array[] = [];
    let total = 0;
    try {
      for (;;) {
        const { done, value } = await watchdog.race(reader.read());
        if (done) break;
        total += value.length;
        if (total > limit) throw tooLarge();
        parts.push(value);
        onBytes?.(total);
        watchdog.progress(value.length);
      }
    } catch (error) {
      void reader.cancel().catch(() => undefined);
      throw this.watchdog.translate(error, this.request, 'body');
    } finally {
      watchdog.stop();
    }
    const out = new Uint8Array(total);
    let offset = 0;
    for (const part of parts) {
      out.set(part, offset);
      offset += part.length;
    }
    return out;
  }
}

/**
 * Aborts the request when less than MIN_BYTES_PER_STALL arrives within `ms` (nothing at all
 * before the headers), and forwards the caller's abort. The abort also rejects any pending
 * read, since a body stream does not always see its request's signal.
 */
class Watchdog {
  readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stalled = false;
  /** Bytes received since the timer was last armed. */
  private received = 0;
  private readonly aborted: Promise<never>;
  private readonly onAbort = () => this.controller.abort();

  constructor(private readonly ms: number, private readonly external?: AbortSignal) {
    this.aborted = new Promise<never>((_, reject) => {
      this.controller.signal.addEventListener('abort', () => reject(new DOMException('Aborted', 'AbortError')), { once: true });
    });
    this.aborted.catch(() => undefined);
    if (external?.aborted) this.controller.abort();
    external?.addEventListener('abort', this.onAbort, { once: true });
    this.arm();
  }

  /** Counts body bytes; enough of them within the stall time starts a new one. */
  progress(bytes: number): void {
    this.received += bytes;
    if (this.received >= MIN_BYTES_PER_STALL) this.arm();
  }

  arm(): void {
    clearTimeout(this.timer);
    this.received = 0;
    this.timer = setTimeout(() => {
      this.stalled = true;
      this.controller.abort();
    }, this.ms);
  }

  stop(): void {
    clearTimeout(this.timer);
    this.external?.removeEventListener('abort', this.onAbort);
  }

  race<T>(promise: Promise<T>): Promise<T> {
    return Promise.race([promise, this.aborted]);
  }

  /** Maps whatever a failed fetch or read threw to Lantern's typed errors. */
  translate(error: unknown, request: NetRequest, stage: 'connect' | 'body'): LanternError {
    if (error instanceof LanternError) return error;
    const where = request.where ?? {};
    if (this.stalled) {
      const seconds = Math.round(this.ms / 1000);
      const what = this.received === 0 ? `No data arrived for ${seconds} s` : `Only ${this.received} bytes arrived in ${seconds} s`;
      return new NetworkError(`${what} while fetching ${request.what}; try again to resume.`, { ...where, stalled: true, retryable: true, bytes: this.received }, { cause: error });
    }
    if (this.external?.aborted) return new CancelledError('The download was cancelled.', {}, { cause: this.external.reason });
    return stage === 'connect'
      ? new NetworkError(`${capitalise(request.what)} could not be fetched: the device may be offline.`, { ...where, retryable: true }, { cause: error })
      : new NetworkError(`The connection dropped while fetching ${request.what}.`, { ...where, retryable: true }, { cause: error });
  }
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** Whether sending the same request again may help (a drop, a stall, 408/429/5xx): every retry's rule. */
export const isRetryable = (error: unknown): error is NetworkError => error instanceof NetworkError && error.details.retryable === true;

/** The wait between two attempts; rejects with CancelledError if `signal` aborts it. */
export const pause = (ms: number, signal?: AbortSignal) => new Promise<void>((resolve, reject) => {
  const timer = setTimeout(resolve, ms);
  signal?.addEventListener('abort', () => {
    clearTimeout(timer);
    reject(new CancelledError('The download was cancelled.', {}, { cause: signal.reason }));
  }, { once: true });
});

/**
 * Sends one request under the origin policy and the stall watchdog. Resolves with the response
 * whatever its status (callers decide what a 404 or a 206 means); throws `NetworkError`
 * (`details.retryable` when trying again may help) or `CancelledError`.
 */
export async function guardedFetch(context: NetContext, request: NetRequest): Promise<GuardedResponse> {
  const href = context.policy.check(request.url);
  const watchdog = new Watchdog(context.stallMs ?? DEFAULT_STALL_MS, request.signal);
  let response: Response;
  try {
    response = await watchdog.race(context.fetch(href, {
      signal: watchdog.controller.signal,
      ...(request.headers ? { headers: request.headers } : {}),
      ...(request.cache ? { cache: request.cache } : {}),
    }));
  } catch (error) {
    watchdog.stop();
    throw watchdog.translate(error, request, 'connect');
  }
  const guarded = new GuardedResponse(response, watchdog, request);
  // `url` is empty for synthetic responses (tests, a service worker's constructed ones).
  if (response.url && response.url !== href) {
    try {
      context.policy.check(response.url);
    } catch {
      guarded.discard();
      throw new NetworkError(`${capitalise(request.what)} was redirected to an address that is not an allowed model source.`, { ...request.where, origin: new URL(response.url).origin });
    }
  }
  return guarded;
}

/**
 * Fetches a small document (manifest, signature, catalog, configuration) whole: a 2xx status
 * is required and the body may not exceed `limit` bytes (`ValidationError` past it).
 */
export async function fetchDocument(context: NetContext, request: NetRequest & { limit: number }): Promise<Uint8Array> {
  const response = await guardedFetch(context, request);
  if (!response.ok) {
    response.discard();
    throw response.statusError();
  }
  if (response.isWebPage) {
    response.discard();
    throw new NetworkError(`${capitalise(request.what)} is not at ${request.url}: the server sent a web page instead.`, { ...request.where, status: response.status });
  }
  return response.read(request.limit, () => new ValidationError(`${capitalise(request.what)} is larger than the ${request.limit} bytes allowed; it was not read.`, { ...request.where, limit: request.limit }));
}

/**
 * A small signed document (a catalog, a release manifest) or its detached signature, never from a
 * cache; `unsigned` is the error for an absent signature (404): unsigned, not unreachable.
 */
export async function fetchSigned(context: NetContext, url: string, what: string, limit: number, signal?: AbortSignal, unsigned?: string): Promise<Uint8Array> {
  try {
    return await fetchDocument(context, { url, what, cache: 'no-store', signal, limit });
  } catch (error) {
    if (unsigned && error instanceof NetworkError && error.details.status === 404) throw new SignatureError(unsigned);
    throw error;
  }
}

/** Parses a fetched JSON document; malformed JSON is a `ValidationError` naming the document. */
export function parseJsonDocument(bytes: Uint8Array, what: string): unknown {
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw new ValidationError(`${capitalise(what)} is not valid JSON.`);
  }
}
