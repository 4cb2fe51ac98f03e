import { CancelledError, IntegrityError, LanternError, NetworkError, throwIfAborted } from '../errors.ts';
import type { OriginPolicy } from './catalog.ts';
import { writeVerifiedChunks, type ChunkSink, type TransferProgress } from './chunk-writer.ts';
import { chunkRange, type Manifest, type ManifestFile } from './manifest.ts';

/**
 * Fetches a release's files chunk by chunk with HTTP Range requests, with bounded retries and
 * exponential backoff. Chunks already stored are skipped and each new one is verified before
 * it is written (chunk-writer.ts), which is all that resuming after a dropped connection or a
 * closed tab needs.
 */

export interface DownloadOptions {
  policy: OriginPolicy;
  fetch?: typeof fetch;
  signal?: AbortSignal;
  /** Retries per chunk after the first attempt, for network errors and 408/429/5xx. */
  retries?: number;
  /** First backoff delay; doubles per retry, capped at 8 s. */
  backoffMs?: number;
  onProgress?: (progress: TransferProgress) => void;
}

/** Worth another try: the connection dropped or the server is briefly unwell. */
class RetryableError extends NetworkError {}

const sleep = (ms: number, signal?: AbortSignal) => new Promise<void>((resolve, reject) => {
  const timer = setTimeout(resolve, ms);
  signal?.addEventListener('abort', () => {
    clearTimeout(timer);
    reject(new CancelledError('The download was cancelled.'));
  }, { once: true });
});

export async function downloadRelease(manifest: Manifest, manifestUrl: string, sink: ChunkSink, options: DownloadOptions): Promise<{ fetchedBytes: number }> {
  const fetcher = options.fetch ?? fetch.bind(globalThis);
  const retries = options.retries ?? 4;
  const backoffMs = options.backoffMs ?? 500;
  /** Set when a server ignored Range and sent a whole file: its other chunks come from it. */
  const whole = new Map<string, Uint8Array>();

  const read = async (file: ManifestFile, index: number): Promise<Uint8Array> => {
    const { start, end } = chunkRange(file, index);
    const cached = whole.get(file.path);
    if (cached) return cached.subarray(start, end);
    const url = options.policy.check(new URL(file.path, manifestUrl).href);
    for (let attempt = 0; ; attempt++) {
      throwIfAborted(options.signal);
      try {
        const fetched = await fetchChunk(fetcher, url, file, index, options.signal);
        if (!fetched.whole) return fetched.bytes;
        whole.set(file.path, fetched.bytes);
        return fetched.bytes.subarray(start, end);
      } catch (error) {
        if (!(error instanceof RetryableError)) throw error;
        if (attempt >= retries) throw new NetworkError(`${file.path} could not be downloaded after ${retries + 1} attempts; try again to resume.`, error.details);
        await sleep(Math.min(8000, backoffMs * 2 ** attempt), options.signal);
      }
    }
  };
  const { readBytes } = await writeVerifiedChunks(manifest, sink, read, options);
  return { fetchedBytes: readBytes };
}

async function fetchChunk(fetcher: typeof fetch, url: string, file: ManifestFile, index: number, signal?: AbortSignal): Promise<{ bytes: Uint8Array; whole: boolean }> {
  const { start, end } = chunkRange(file, index);
  const where = { file: file.path, chunk: index };
  let response: Response;
  try {
    response = await fetcher(url, { headers: { Range: `bytes=${start}-${end - 1}` }, signal, cache: 'no-store' });
  } catch (error) {
    if (signal?.aborted) throw new CancelledError('The download was cancelled.');
    throw new RetryableError(`The connection failed while downloading ${file.path}.`, where, { cause: error });
  }
  if (response.status === 408 || response.status === 429 || response.status >= 500) {
    throw new RetryableError(`The server could not send ${file.path} (HTTP ${response.status}).`, { ...where, status: response.status });
  }
  if (response.status === 416) throw new IntegrityError(`The server's copy of ${file.path} is shorter than the signed manifest says.`, where);
  if (response.status !== 200 && response.status !== 206) {
    throw new NetworkError(`The server refused ${file.path} (HTTP ${response.status}).`, { ...where, status: response.status });
  }
  // A login or error page served with 200 is the classic way a model file gets replaced.
  if (/text\/html/i.test(response.headers.get('Content-Type') ?? '')) {
    throw new IntegrityError(`The server sent a web page instead of ${file.path}; it was not stored.`, where);
  }
  if (response.status === 206) {
    const range = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(response.headers.get('Content-Range') ?? '');
    if (range && range[3] !== String(file.size)) {
      throw new IntegrityError(`The server's copy of ${file.path} is not the size the signed manifest says; it was not stored.`, where);
    }
    if (range && (Number(range[1]) !== start || Number(range[2]) !== end - 1)) {
      throw new IntegrityError(`The server sent the wrong part of ${file.path}; it was not stored.`, where);
    }
  }
  let body: Uint8Array;
  try {
    body = new Uint8Array(await response.arrayBuffer());
  } catch (error) {
    if (signal?.aborted) throw new CancelledError('The download was cancelled.');
    if (error instanceof LanternError) throw error;
    throw new RetryableError(`The connection dropped while downloading ${file.path}.`, where, { cause: error });
  }
  if (response.status === 200) {
    if (body.length !== file.size) throw new IntegrityError(`${file.path} has ${body.length} bytes instead of ${file.size}; it was not stored.`, where);
    return { bytes: body, whole: true };
  }
  return { bytes: body, whole: false };
}
