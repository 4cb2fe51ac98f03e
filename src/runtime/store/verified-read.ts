import { concatBytes, sha256Hex } from './bytes.ts';
import type { Manifest, FileRole } from './manifest.ts';

/**
 * Reads a stored version back and checks every chunk and every whole file against its signed
 * manifest. Used before activation and again each time a model is handed to the worker, so
 * storage corruption or tampering is caught before ORT ever sees the bytes.
 */
export type VerifiedRead =
  | { ok: true; files: Map<FileRole, Uint8Array<ArrayBuffer>>; byPath: Map<string, Uint8Array<ArrayBuffer>> }
  | { ok: false; badChunks: string[] };

export async function readVerified(store: { getChunk(sha: string): Promise<ArrayBuffer | undefined> }, manifest: Manifest): Promise<VerifiedRead> {
  const files = new Map<FileRole, Uint8Array<ArrayBuffer>>();
  const byPath = new Map<string, Uint8Array<ArrayBuffer>>();
  const badChunks: string[] = [];
  for (const file of manifest.files) {
    const parts: Uint8Array[] = [];
    for (const sha of file.chunks) {
      const stored = await store.getChunk(sha);
      if (!stored || (await sha256Hex(stored)) !== sha) badChunks.push(sha);
      else parts.push(new Uint8Array(stored));
    }
    if (parts.length !== file.chunks.length) continue;
    const bytes = concatBytes(parts);
    // Chunks can all be right yet be listed wrongly (a publisher bug): the file hash catches it.
    if (bytes.length !== file.size || (await sha256Hex(bytes)) !== file.sha256) badChunks.push(...file.chunks);
    else {
      files.set(file.role, bytes);
      byPath.set(file.path, bytes);
    }
  }
  return badChunks.length ? { ok: false, badChunks } : { ok: true, files, byPath };
}
