import { IntegrityError, throwIfAborted } from '../errors.ts';
import { concatBytes, sha256Hex } from './bytes.ts';
import { chunkRange, totalSize, verifyChunk, type Manifest, type ManifestFile } from './manifest.ts';

/**
 * The one loop that puts a release's chunks into the store, whatever they come from (network
 * or sideloaded bundle): skip what is already stored (that is resume), verify length and sha256
 * against the signed manifest, and only then write.
 */

export interface ChunkSink {
  hasChunk(sha256: string): Promise<boolean>;
  putChunk(sha256: string, bytes: ArrayBuffer): Promise<void>;
}

export interface TransferProgress {
  /** Bytes verified so far, including chunks that were already stored. */
  bytes: number;
  total: number;
  percent: number;
  /** Bytes per second actually read (network or disk) since the transfer started. */
  rate: number;
}

export type ReadChunk = (file: ManifestFile, index: number) => Promise<Uint8Array>;

export async function writeVerifiedChunks(
  manifest: Manifest,
  sink: ChunkSink,
  read: ReadChunk,
  options: { signal?: AbortSignal; onProgress?: (p: TransferProgress) => void } = {},
): Promise<{ readBytes: number }> {
  const total = totalSize(manifest);
  const started = performance.now();
  let done = 0;
  let readBytes = 0;
  const report = () => {
    const seconds = Math.max(0.001, (performance.now() - started) / 1000);
    options.onProgress?.({ bytes: done, total, percent: total ? (100 * done) / total : 100, rate: readBytes / seconds });
  };
  report();
  for (const file of manifest.files) {
    for (let index = 0; index < file.chunks.length; index++) {
      throwIfAborted(options.signal);
      const sha = file.chunks[index]!;
      const { start, end } = chunkRange(file, index);
      if (!(await sink.hasChunk(sha))) {
        const bytes = await read(file, index);
        readBytes += bytes.length;
        await verifyChunk(file, index, bytes);
        await sink.putChunk(sha, bytes.slice().buffer as ArrayBuffer);
      }
      done += end - start;
      report();
    }
  }
  return { readBytes };
}

/**
 * For a source that can be read twice at no cost (a sideloaded bundle): checks every chunk and
 * every whole file before anything is written, so a release whose chunks do not make up its
 * files is refused with the store untouched.
 */
export async function assertWholeFiles(manifest: Manifest, read: ReadChunk, signal?: AbortSignal): Promise<void> {
  for (const file of manifest.files) {
    const parts: Uint8Array[] = [];
    for (let index = 0; index < file.chunks.length; index++) {
      throwIfAborted(signal);
      const bytes = await read(file, index);
      await verifyChunk(file, index, bytes);
      parts.push(bytes);
    }
    if ((await sha256Hex(concatBytes(parts))) !== file.sha256) {
      throw new IntegrityError(`The chunks of ${file.path} do not make up the file the signed manifest describes; nothing was installed.`, { file: file.path });
    }
  }
}
