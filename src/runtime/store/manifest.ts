import { z } from 'zod/mini';
import { IntegrityError, ValidationError } from '../errors.ts';
import { ModelIdSchema } from '../model-id.ts';
import { parseSchema } from '../schema.ts';
import {
  MAX_CHUNK_SIZE, MAX_CHUNKS_PER_FILE, MAX_FILE_SIZE, MAX_FILES, MAX_GOLDEN_ITEMS, MAX_GOLDEN_TEXT_LENGTH,
  MAX_LABEL_LENGTH, MAX_LABELS, MAX_PATH_LENGTH, MAX_SAMPLES, MAX_TITLE_LENGTH,
} from '../schema-limits.ts';
import { sha256Hex } from './bytes.ts';
import { validForAtMost } from './expiry.ts';

/**
 * The signed description of one model release (`lantern-manifest/1`). The bytes that are
 * signed are the manifest.json file exactly as served, never a re-serialisation, so the
 * verifier needs no canonical JSON.
 */
const MANIFEST_FORMAT = 'lantern-manifest/1';

const Sha256 = z.string().check(z.regex(/^[0-9a-f]{64}$/, 'expected a lowercase hex sha256'));
/** Relative, no `..`, no empty segments: a path can never climb out of its release folder. */
const RelativePath = z.string().check(z.maxLength(MAX_PATH_LENGTH), z.regex(/^(?!.*(?:^|\/)\.\.?(?:\/|$))[A-Za-z0-9._-]+(?:\/[A-Za-z0-9._-]+)*$/, 'expected a relative path'));
/** `golden`: an image input of the validation set (several allowed); every other role is unique. */
export const FILE_ROLES = ['onnx', 'config', 'preprocessor', 'tokenizer', 'tokenizer-config', 'golden'] as const;
export type FileRole = (typeof FILE_ROLES)[number];

const ManifestFileSchema = z.object({
  path: RelativePath,
  role: z.enum(FILE_ROLES),
  size: z.int().check(z.nonnegative(), z.lte(MAX_FILE_SIZE)),
  sha256: Sha256,
  chunkSize: z.int().check(z.positive(), z.lte(MAX_CHUNK_SIZE)),
  chunks: z.array(Sha256).check(z.maxLength(MAX_CHUNKS_PER_FILE)),
}).check(z.refine((f) => f.chunks.length === Math.max(1, Math.ceil(f.size / f.chunkSize)), 'chunk count does not match size / chunkSize'));

const GoldenItemSchema = z.object({
  input: z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('text'), text: z.string().check(z.maxLength(MAX_GOLDEN_TEXT_LENGTH)) }),
    z.object({ kind: z.literal('image'), path: RelativePath }),
  ]),
  label: z.string().check(z.maxLength(MAX_LABEL_LENGTH)),
});
export const ValidationSchema = z.object({
  /** Minimum accuracy (0–1) on the items for the release to become active. */
  threshold: z.number().check(z.gte(0), z.lte(1)),
  items: z.array(GoldenItemSchema).check(z.minLength(1), z.maxLength(MAX_GOLDEN_ITEMS)),
});
export type ReleaseValidation = z.infer<typeof ValidationSchema>;

/** Promotion bar for a release installed in shadow: promoted automatically once met (release/shadow.ts). */
export const ShadowPolicySchema = z.object({
  /** Real requests the candidate must have run on. */
  minRuns: z.int().check(z.positive(), z.lte(1_000_000)),
  /** Minimum top-1 agreement (0–1) with the active version. */
  minAgreement: z.number().check(z.gte(0), z.lte(1)),
});

export const ManifestSchema = z.object({
  format: z.literal(MANIFEST_FORMAT),
  id: ModelIdSchema,
  version: z.string().check(z.maxLength(64), z.regex(/^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?$/, 'version must be semver')),
  /** Monotonic per model: a lower number than one already seen is a downgrade or a replay. */
  sequence: z.int().check(z.nonnegative()),
  task: z.enum(['text-classification', 'image-classification']),
  title: z.string().check(z.maxLength(MAX_TITLE_LENGTH)),
  createdAt: z.iso.datetime(),
  expiresAt: z.optional(z.iso.datetime()),
  batch: z.enum(['dynamic', 'fixed']),
  labels: z.array(z.string().check(z.maxLength(MAX_LABEL_LENGTH))).check(z.minLength(2), z.maxLength(MAX_LABELS)),
  files: z.array(ManifestFileSchema).check(
    z.minLength(1),
    z.maxLength(MAX_FILES),
    z.refine((files) => new Set(files.map((f) => f.path)).size === files.length, 'duplicate file path'),
    z.refine((files) => files.filter((f) => f.role === 'onnx').length === 1 && files.filter((f) => f.role === 'config').length === 1, 'needs exactly one onnx and one config file'),
    z.refine((files) => { const unique = files.filter((f) => f.role !== 'golden'); return new Set(unique.map((f) => f.role)).size === unique.length; }, 'duplicate file role'),
  ),
  /** Example inputs published next to the manifest; unsigned conveniences, never model data. */
  samples: z._default(z.array(z.object({ name: z.string().check(z.maxLength(100)), path: RelativePath, kind: z.enum(['text', 'image']) })).check(z.maxLength(MAX_SAMPLES)), []),
  /** Optional golden set the device runs before activating this release (the validation gate). */
  validation: z.optional(ValidationSchema),
  /** Install in shadow next to the active version and promote automatically at this bar. */
  shadow: z.optional(ShadowPolicySchema),
}).check(z.refine((m) => (m.validation?.items ?? []).every(({ input }) => input.kind === 'text' || m.files.some((f) => f.role === 'golden' && f.path === input.path)),
  'every golden image must be a listed file with role "golden"'));
export type Manifest = z.infer<typeof ManifestSchema>;
export type ManifestFile = Manifest['files'][number];

/** `id@version`: the key of a version everywhere (store, worker sessions, UI). */
export const versionKey = (m: { id: string; version: string }): string => `${m.id}@${m.version}`;

/** Parses manifest bytes; any problem is a ValidationError naming the field, never echoing content. */
export function parseManifest(bytes: Uint8Array): Manifest {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw new ValidationError('The release manifest is not valid JSON.');
  }
  return parseSchema(ManifestSchema, json, 'The release manifest');
}

/** The longest a release may stay installable after its `createdAt` (two years, a leap day included). */
export const MAX_RELEASE_VALIDITY_DAYS = 731;

/**
 * Expiry is checked when installing; an installed model keeps working offline after it. A release
 * that never expires is refused too (TUF: all signed metadata expires), so one a careless
 * publisher's own tooling signed without a date cannot be installed from a mirror forever;
 * `model:pack` always sets one. An expiry more than MAX_RELEASE_VALIDITY_DAYS after the release's
 * creation is refused for the same reason (`--expires 9999-12-31`). Versions installed before
 * these rules keep answering.
 */
export function assertNotExpired(manifest: Manifest, now = Date.now()): void {
  if (!manifest.expiresAt) {
    throw new ValidationError(`Release ${manifest.version} of ${manifest.id} has no expiry date; a release must expire (model:pack sets one).`, { id: manifest.id, version: manifest.version });
  }
  if (!validForAtMost(manifest.createdAt, manifest.expiresAt, MAX_RELEASE_VALIDITY_DAYS)) {
    throw new ValidationError(`Release ${manifest.version} of ${manifest.id} is signed to stay installable until ${manifest.expiresAt.slice(0, 10)}, more than ${MAX_RELEASE_VALIDITY_DAYS} days after it was made; a release must expire sooner (ask the publisher to pack it with an earlier --expires).`, { id: manifest.id, version: manifest.version });
  }
  if (Date.parse(manifest.expiresAt) <= now) {
    throw new ValidationError(`Release ${manifest.version} of ${manifest.id} has expired; ask the publisher for a newer one.`, { id: manifest.id, version: manifest.version });
  }
}

/** Byte range [start, end) of chunk `index` within its file. */
export function chunkRange(file: ManifestFile, index: number): { start: number; end: number } {
  const start = index * file.chunkSize;
  return { start, end: Math.min(file.size, start + file.chunkSize) };
}

export const totalSize = (m: Manifest): number => m.files.reduce((n, f) => n + f.size, 0);

/** Throws IntegrityError unless `bytes` is exactly chunk `index` of `file`. */
export async function verifyChunk(file: ManifestFile, index: number, bytes: Uint8Array): Promise<void> {
  const { start, end } = chunkRange(file, index);
  const where = { file: file.path, chunk: index };
  if (bytes.length !== end - start) {
    throw new IntegrityError(`Chunk ${index + 1} of ${file.path} has ${bytes.length} bytes instead of ${end - start}.`, where);
  }
  if ((await sha256Hex(bytes)) !== file.chunks[index]) {
    throw new IntegrityError(`Chunk ${index + 1} of ${file.path} does not match the hash in the signed manifest.`, where);
  }
}

/** Default chunk size: small enough to resume cheaply on a poor link, big enough to keep requests few. */
const DEFAULT_CHUNK_SIZE = 256 * 1024;

export interface PackInput {
  id: string;
  version: string;
  sequence: number;
  task: Manifest['task'];
  title: string;
  batch: Manifest['batch'];
  labels: string[];
  createdAt: string;
  expiresAt?: string;
  files: { path: string; role: FileRole; bytes: Uint8Array }[];
  samples?: Manifest['samples'];
  validation?: ReleaseValidation;
  shadow?: z.infer<typeof ShadowPolicySchema>;
  chunkSize?: number;
}

/**
 * Builds a manifest and its exact bytes from file contents. Shared by the CLI, the build plugin
 * and the tests, so what is published and what is verified come from one definition.
 */
export async function buildManifest(input: PackInput): Promise<{ manifest: Manifest; bytes: Uint8Array<ArrayBuffer> }> {
  const chunkSize = input.chunkSize ?? DEFAULT_CHUNK_SIZE;
  const files = await Promise.all(input.files.map(async (f) => {
    const count = Math.max(1, Math.ceil(f.bytes.length / chunkSize));
    const chunks = await Promise.all(Array.from({ length: count }, (_, i) => sha256Hex(f.bytes.subarray(i * chunkSize, (i + 1) * chunkSize))));
    return { path: f.path, role: f.role, size: f.bytes.length, sha256: await sha256Hex(f.bytes), chunkSize, chunks };
  }));
  const draft = {
    format: MANIFEST_FORMAT,
    id: input.id,
    version: input.version,
    sequence: input.sequence,
    task: input.task,
    title: input.title,
    createdAt: input.createdAt,
    ...(input.expiresAt ? { expiresAt: input.expiresAt } : {}),
    batch: input.batch,
    labels: input.labels,
    files,
    samples: input.samples ?? [],
    ...(input.validation ? { validation: input.validation } : {}),
    ...(input.shadow ? { shadow: input.shadow } : {}),
  };
  return { manifest: parseSchema(ManifestSchema, draft, 'The release manifest'), bytes: new TextEncoder().encode(`${JSON.stringify(draft, null, 1)}\n`) };
}
