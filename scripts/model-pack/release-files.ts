import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { IntegrityError, ValidationError } from '../../src/runtime/errors.ts';
import type { ReadChunk } from '../../src/runtime/store/chunk-writer.ts';
import { chunkRange } from '../../src/runtime/store/manifest.ts';

/**
 * A release folder's files as a device downloads them, for the publisher tools that check a
 * folder before it is served (`verify`) or vouched for (`sign`): both then run the device's own
 * check of every chunk and file (chunk-writer.ts `assertWholeFiles`) on these reads.
 */

/**
 * The file a catalog or manifest names, relative to `dir` as a device resolves it against the
 * catalog's URL. One at another URL cannot be checked from the folder: said so, as a refusal.
 */
export function fileFor(dir: string, reference: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(reference)) throw new ValidationError(`${reference} is a URL, not a file of ${dir}: it cannot be checked from here.`);
  return join(dir, reference);
}

/** A file the folder must hold; one that is missing is what a device would fail to download. */
export const readListed = (path: string): Promise<Uint8Array> => readFile(path).catch((error: NodeJS.ErrnoException) => {
  throw error.code === 'ENOENT' ? new ValidationError(`${path} is missing: devices would fail to download it.`) : error;
});

/**
 * Chunks of the files beside a manifest in `releaseDir`, as byte ranges. A file of another size
 * than its manifest says is refused before any chunk is compared, as a device refuses it (its
 * downloader checks the size the server reports): bytes added at the end would otherwise pass,
 * since no chunk covers them.
 */
export function folderChunks(releaseDir: string): ReadChunk {
  const files = new Map<string, Promise<Uint8Array>>();
  return async (file, index) => {
    const path = fileFor(releaseDir, file.path);
    let bytes = files.get(path);
    if (!bytes) files.set(path, (bytes = readListed(path)));
    const whole = await bytes;
    if (whole.length !== file.size) throw new IntegrityError(`${path} has ${whole.length} bytes, and its signed manifest says ${file.size}: devices would refuse it.`, { file: file.path });
    const { start, end } = chunkRange(file, index);
    return whole.subarray(start, end);
  };
}
