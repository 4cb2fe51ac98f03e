import { concatBytes, sha256Hex } from './bytes.ts';
import type { Manifest, FileRole } from './manifest.ts';

/**
 * Reads a stored version back and checks every chunk and every whole file against its signed
 * manifest. Used before activation and again each time a model is handed to the worker, so
 * storage corruption or tampering is caught before ORT ever sees the bytes.
 */
export type VerifiedRead =
  | { ok: true; files: Map<FileRole, Uint8Array<ArrayBuffer>>; byPath: Map<string, Uint8Array<ArrayBuffer>> }
  /**
   * `badChunks`: missing, or bytes that fail their own hash (storage damage: only these may be
   * deleted). `badFiles`: every chunk is right but the whole file is not (the manifest is wrong,
   * a publisher's mistake): nothing stored is damaged and nothing may be deleted for it.
   */
  | { ok: false; badChunks: string[]; badFiles: string[] };

export async function readVerified(store: { getChunk(sha: string): Promise<ArrayBuffer | undefined> }, manifest: Manifest): Promise<VerifiedRead> {
  const files = new Map<FileRole, Uint8Array<ArrayBuffer>>();
  const byPath = new Map<string, Uint8Array<ArrayBuffer>>();
  const badChunks: string[] = [];
  const badFiles: string[] = [];
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
    if (bytes.length !== file.size || (await sha256Hex(bytes)) !== file.sha256) badFiles.push(file.path);
    else {
      files.set(file.role, bytes);
      byPath.set(file.path, bytes);
    }
  }
  return badChunks.length || badFiles.length ? { ok: false, badChunks, badFiles } : { ok: true, files, byPath };
}
