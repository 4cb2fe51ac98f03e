import { IntegrityError, NetworkError, throwIfAborted } from '../errors.ts';
import { writeVerifiedChunks, type ChunkSink, type TransferProgress } from './chunk-writer.ts';
import { chunkRange, type Manifest, type ManifestFile } from './manifest.ts';
import { guardedFetch, isRetryable, pause, type NetContext } from './net.ts';

/**
 * Fetches a release's files chunk by chunk with HTTP Range requests, with bounded retries and
 * exponential backoff. Chunks already stored are skipped and each new one is verified before
 * it is written (chunk-writer.ts), which is all that resuming after a dropped connection or a
 * closed tab needs. A file of one chunk is asked for whole, without Range: resuming works per
 * chunk anyway, and a whole-file response may come compressed (a range of a compressed stream
 * cannot), which is a third less to download for a typical quantised model or tokenizer.
 */

export interface DownloadOptions {
  /** Origin policy, fetch and stall timeout (net.ts). */
  net: NetContext;
  signal?: AbortSignal;
  /** Retries per chunk after the first attempt, for retryable network errors (drops, stalls, 408/429/5xx). */
  retries?: number;
  /** First backoff delay; doubles per retry, capped at 8 s. */
  backoffMs?: number;
  onProgress?: (progress: TransferProgress) => void;
}

export async function downloadRelease(manifest: Manifest, manifestUrl: string, sink: ChunkSink, options: DownloadOptions): Promise<{ fetchedBytes: number }> {
  const retries = options.retries ?? 4;
  const backoffMs = options.backoffMs ?? 500;
  /** Set when a server ignored Range and sent a whole file: its other chunks come from it. */
  const whole = new Map<string, Uint8Array>();

  const read = async (file: ManifestFile, index: number): Promise<Uint8Array> => {
    const { start, end } = chunkRange(file, index);
    const cached = whole.get(file.path);
    if (cached) return cached.subarray(start, end);
    const url = new URL(file.path, manifestUrl).href;
    for (let attempt = 0; ; attempt++) {
      throwIfAborted(options.signal);
      try {
        const fetched = await fetchChunk(options.net, url, file, index, options.signal);
        if (!fetched.whole) return fetched.bytes;
        whole.set(file.path, fetched.bytes);
        return fetched.bytes.subarray(start, end);
      } catch (error) {
        if (!isRetryable(error)) throw error;
        if (attempt >= retries) throw new NetworkError(`${file.path} could not be downloaded after ${retries + 1} attempts; try again to resume.`, error.details, { cause: error });
        await pause(Math.min(8000, backoffMs * 2 ** attempt), options.signal);
      }
    }
  };
  const { readBytes } = await writeVerifiedChunks(manifest, sink, read, options);
  return { fetchedBytes: readBytes };
}

async function fetchChunk(net: NetContext, url: string, file: ManifestFile, index: number, signal?: AbortSignal): Promise<{ bytes: Uint8Array; whole: boolean }> {
  const { start, end } = chunkRange(file, index);
  const where = { file: file.path, chunk: index };
  const headers: Record<string, string> = file.chunks.length > 1 ? { Range: `bytes=${start}-${end - 1}` } : {};
  const response = await guardedFetch(net, { url, what: file.path, headers, cache: 'no-store', signal, where });
  if (response.status === 416) {
    response.discard();
    throw new IntegrityError(`The server's copy of ${file.path} is shorter than the signed manifest says.`, where);
  }
  if (response.status !== 200 && response.status !== 206) {
    response.discard();
    throw response.statusError();
  }
  // A login or error page served with 200 is the classic way a model file gets replaced.
  if (response.isWebPage) {
    response.discard();
    throw new IntegrityError(`The server sent a web page instead of ${file.path}; it was not stored.`, where);
  }
  const whole = response.status === 200;
  if (!whole) {
    const range = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(response.headers.get('Content-Range') ?? '');
    let problem: string | undefined;
    if (range && range[3] !== String(file.size)) problem = `The server's copy of ${file.path} is not the size the signed manifest says; it was not stored.`;
    else if (range && (Number(range[1]) !== start || Number(range[2]) !== end - 1)) problem = `The server sent the wrong part of ${file.path}; it was not stored.`;
    if (problem) {
      response.discard();
      throw new IntegrityError(problem, where);
    }
  }
  // Never buffer more than the signed size: the body is cut there, whatever the server sends.
  const expected = whole ? file.size : end - start;
  const bytes = await response.read(expected, () => new IntegrityError(`The server sent more of ${file.path} than the signed manifest says; it was not stored.`, where));
  if (whole && bytes.length !== file.size) throw new IntegrityError(`${file.path} has ${bytes.length} bytes instead of ${file.size}; it was not stored.`, where);
  return { bytes, whole };
}
