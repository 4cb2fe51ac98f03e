import { z } from 'zod/mini';
import { unreadableFile, ValidationError } from '../errors.ts';
import { concatBytes } from './bytes.ts';
import { chunkRange, type ManifestFile } from './manifest.ts';
import { DOCUMENT_LIMITS } from './net.ts';
import { SignatureFileSchema, type SignatureFile } from './trust.ts';

/**
 * Sideload bundle (`.lantern`): one file carrying a release for a device with no network.
 * Layout: 8-byte magic, u32 little-endian header length, header JSON, then the exact manifest
 * bytes followed by each file's bytes. The bundle is only a container: its contents go through
 * the same signature and hash checks as a download.
 */
const MAGIC = new TextEncoder().encode('LANTERN1');
const PREFIX = MAGIC.length + 4;
const MAX_HEADER = 1 << 20;

const HeaderSchema = z.object({
  format: z.literal('lantern-bundle/1'),
  manifestLength: z.int().check(z.positive()),
  signatures: SignatureFileSchema,
  /** Offsets are relative to the end of the header. */
  files: z.array(z.object({ path: z.string(), offset: z.int().check(z.nonnegative()), size: z.int().check(z.nonnegative()) })),
});

/** The bundle as consecutive parts (a `Blob` can be built from them without copying the files). */
export function bundleParts(manifestBytes: Uint8Array, signatures: SignatureFile, files: { path: string; bytes: Uint8Array }[]): Uint8Array<ArrayBuffer>[] {
  let offset = manifestBytes.length;
  const entries = files.map((f) => {
    const entry = { path: f.path, offset, size: f.bytes.length };
    offset += f.bytes.length;
    return entry;
  });
  const header = new TextEncoder().encode(JSON.stringify({ format: 'lantern-bundle/1', manifestLength: manifestBytes.length, signatures, files: entries }));
  const prefix = new Uint8Array(PREFIX);
  prefix.set(MAGIC);
  new DataView(prefix.buffer).setUint32(MAGIC.length, header.length, true);
  return [prefix, header, manifestBytes, ...files.map((f) => f.bytes)] as Uint8Array<ArrayBuffer>[];
}

export function writeBundle(manifestBytes: Uint8Array, signatures: SignatureFile, files: { path: string; bytes: Uint8Array }[]): Uint8Array<ArrayBuffer> {
  return concatBytes(bundleParts(manifestBytes, signatures, files));
}

/** What `Blob`/`File` offers; reading by slices keeps a large bundle out of memory. */
export interface BundleSource {
  readonly size: number;
  slice(start: number, end: number): { arrayBuffer(): Promise<ArrayBuffer> };
}

export interface OpenedBundle {
  manifestBytes: Uint8Array;
  signatures: SignatureFile;
  /** Bytes of chunk `index` of `file`, as stored in the bundle (verified by the caller). */
  readChunk(file: ManifestFile, index: number): Promise<Uint8Array>;
}

const notABundle = () => new ValidationError('That file is not a Lantern model bundle.');

export async function openBundle(source: BundleSource): Promise<OpenedBundle> {
  const read = async (start: number, end: number): Promise<Uint8Array> => {
    try {
      return new Uint8Array(await source.slice(start, end).arrayBuffer());
    } catch (error) {
      throw unreadableFile(error);
    }
  };
  if (source.size < PREFIX) throw notABundle();
  const prefix = await read(0, PREFIX);
  if (!MAGIC.every((b, i) => prefix[i] === b)) throw notABundle();
  const headerLength = new DataView(prefix.buffer).getUint32(MAGIC.length, true);
  if (headerLength > MAX_HEADER || PREFIX + headerLength > source.size) throw notABundle();
  let header: z.infer<typeof HeaderSchema>;
  try {
    header = HeaderSchema.parse(JSON.parse(new TextDecoder().decode(await read(PREFIX, PREFIX + headerLength))));
  } catch {
    throw new ValidationError('The model bundle is damaged: its header cannot be read.');
  }
  const body = PREFIX + headerLength;
  // The manifest is read whole before its signature is checked: the same bound as a download's.
  if (header.manifestLength > DOCUMENT_LIMITS.manifest) {
    throw new ValidationError(`The model bundle's manifest is too large (${header.manifestLength} bytes; the limit is ${DOCUMENT_LIMITS.manifest}).`, { bytes: header.manifestLength, limit: DOCUMENT_LIMITS.manifest });
  }
  if (body + header.manifestLength > source.size) throw new ValidationError('The model bundle is truncated.');
  const files = new Map(header.files.map((f) => [f.path, f]));
  return {
    manifestBytes: await read(body, body + header.manifestLength),
    signatures: header.signatures,
    async readChunk(file, index) {
      const entry = files.get(file.path);
      if (!entry) throw new ValidationError(`The model bundle does not contain ${file.path}.`);
      const { start, end } = chunkRange(file, index);
      const from = body + entry.offset + start;
      // A short read is caught by the caller's length check, like a short download.
      return read(Math.min(from, source.size), Math.min(body + entry.offset + Math.min(end, entry.size), source.size));
    },
  };
}
