import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { writeBundle } from '../../src/runtime/store/bundle.ts';
import { ValidationError } from '../../src/runtime/errors.ts';
import { CATALOG_FORMAT, ReleaseCatalogSchema, ReleaseEntrySchema, type ReleaseEntry } from '../../src/runtime/store/catalog.ts';
import { buildManifest, sequenceFromVersion, type Manifest } from '../../src/runtime/store/manifest.ts';
import { sign, type KeyFile, type SignatureFile } from '../../src/runtime/store/trust.ts';
import type { ModelFolder } from './folder.ts';
import type { GoldenSet } from './golden.ts';
import { inspectModel } from './inspect.ts';

/**
 * Turns a model folder into a signed release. The layout (under a catalog root) is
 * `<id>/<version>/manifest.json`, `manifest.sig.json`, then each file at its manifest path and
 * the samples; clients fetch chunks with Range requests, so files are published whole.
 */
export interface PackedRelease {
  manifest: Manifest;
  manifestBytes: Uint8Array;
  signatures: SignatureFile;
  /** Every published file, by path relative to the catalog root. */
  published: Map<string, Uint8Array>;
  entry: ReleaseEntry;
}

export interface PackOptions {
  keys: readonly KeyFile[];
  sequence?: number;
  chunkSize?: number;
  createdAt?: string;
  expiresAt?: string;
  /** A validation set the device runs before activating the release (see golden.ts). */
  golden?: GoldenSet;
  /** Signed in the manifest: install in shadow, promote automatically at this bar. */
  shadow?: Manifest['shadow'];
  /** Catalog entry: the fraction of devices that install it automatically (staged rollout). */
  rollout?: number;
}

export async function packRelease(model: ModelFolder, options: PackOptions): Promise<PackedRelease> {
  if (options.rollout !== undefined && !ReleaseEntrySchema.shape.rollout.safeParse(options.rollout).success) {
    throw new ValidationError('The rollout must be a fraction of devices between 0 and 1.');
  }
  await inspectModel(model);
  const files = [...model.files, ...(options.golden?.files ?? [])];
  const { manifest, bytes } = await buildManifest({
    ...model.meta,
    sequence: options.sequence ?? sequenceFromVersion(model.meta.version),
    createdAt: options.createdAt ?? new Date().toISOString(),
    ...(options.expiresAt ? { expiresAt: options.expiresAt } : {}),
    files,
    ...(options.golden ? { validation: options.golden.validation } : {}),
    ...(options.shadow ? { shadow: options.shadow } : {}),
    samples: model.samples.map(({ name, path, kind }) => ({ name, path, kind })),
    ...(options.chunkSize ? { chunkSize: options.chunkSize } : {}),
  });
  const signatures: SignatureFile = { signatures: await Promise.all(options.keys.map((k) => sign(bytes, k))) };
  const dir = `${manifest.id}/${manifest.version}/`;
  const published = new Map<string, Uint8Array>([
    [`${dir}manifest.json`, bytes],
    [`${dir}manifest.sig.json`, new TextEncoder().encode(`${JSON.stringify(signatures, null, 1)}\n`)],
    ...files.map((f) => [`${dir}${f.path}`, f.bytes] as const),
    ...model.samples.map((s) => [`${dir}${s.path}`, s.bytes] as const),
  ]);
  const entry: ReleaseEntry = {
    id: manifest.id, version: manifest.version, sequence: manifest.sequence, title: manifest.title,
    manifest: `${dir}manifest.json`, signature: `${dir}manifest.sig.json`,
    size: manifest.files.reduce((n, f) => n + f.size, 0),
    ...(options.rollout !== undefined ? { rollout: options.rollout } : {}),
  };
  return { manifest, manifestBytes: bytes, signatures, published, entry };
}

/** The single-file sideload bundle of a packed release (manifest, signatures, files). */
export function bundleOf(release: PackedRelease): Uint8Array {
  const dir = `${release.manifest.id}/${release.manifest.version}/`;
  return writeBundle(release.manifestBytes, release.signatures, release.manifest.files.map((f) => ({ path: f.path, bytes: release.published.get(`${dir}${f.path}`)! })));
}

/** A catalog listing these releases (one entry per id@version; later ones replace earlier ones). */
export function catalogJson(entries: readonly ReleaseEntry[]): string {
  const byKey = new Map(entries.map((e) => [`${e.id}@${e.version}`, e]));
  return `${JSON.stringify({ format: CATALOG_FORMAT, releases: [...byKey.values()] }, null, 1)}\n`;
}

/** Writes a release under `outDir` and adds it to `outDir/catalog.json` (created if absent). */
export async function writeRelease(outDir: string, release: PackedRelease): Promise<void> {
  for (const [path, bytes] of release.published) {
    await mkdir(dirname(join(outDir, path)), { recursive: true });
    await writeFile(join(outDir, path), bytes);
  }
  const catalogPath = join(outDir, 'catalog.json');
  const existing = await readFile(catalogPath, 'utf8').then((text) => ReleaseCatalogSchema.parse(JSON.parse(text)).releases, () => []);
  await writeFile(catalogPath, catalogJson([...existing, release.entry]));
}
