import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { openBundle, writeBundle } from '../../src/runtime/store/bundle.ts';
import { assertWholeFiles } from '../../src/runtime/store/chunk-writer.ts';
import { concatBytes, sha256Hex } from '../../src/runtime/store/bytes.ts';
import { LanternError, SignatureError, ValidationError } from '../../src/runtime/errors.ts';
import { CATALOG_FORMAT, catalogBytes, parseCatalog, ReleaseEntrySchema, type ReleaseCatalog, type ReleaseEntry } from '../../src/runtime/store/catalog.ts';
import { buildManifest, parseManifest, type Manifest } from '../../src/runtime/store/manifest.ts';
import { parseSignatureFile, sign, trustEntryFor, TrustStore, type KeyFile, type SignatureFile } from '../../src/runtime/store/trust.ts';
import type { ModelFolder } from './folder.ts';
import type { GoldenSet } from './golden.ts';
import { inspectModel } from './inspect.ts';
import { folderChunks } from './release-files.ts';
import { sequenceFromVersion } from './sequence.ts';

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
  /** Default: RELEASE_VALIDITY_DAYS after createdAt. Expiry stops installs, never an installed model. */
  expiresAt?: string;
  /** A validation set the device runs before activating the release (see golden.ts). */
  golden?: GoldenSet;
  /** Signed in the manifest: install in shadow, promote automatically at this bar. */
  shadow?: Manifest['shadow'];
  /** Catalog entry: the fraction of devices that install it automatically (staged rollout). */
  rollout?: number;
}

/** How long a release may be installed after it was packed, unless the publisher says otherwise. */
export const RELEASE_VALIDITY_DAYS = 365;
/** How long a catalog vouches for "this is the newest": the publisher re-signs it before then. */
const CATALOG_VALIDITY_DAYS = 30;

/** A detached signature file as published (`*.sig.json`). */
const signatureFileBytes = (signatures: SignatureFile): Uint8Array => new TextEncoder().encode(`${JSON.stringify(signatures, null, 1)}\n`);

export const daysAfter = (iso: string, days: number): string => new Date(Date.parse(iso) + days * 86_400_000).toISOString();

export async function packRelease(model: ModelFolder, options: PackOptions): Promise<PackedRelease> {
  if (options.rollout !== undefined && !ReleaseEntrySchema.shape.rollout.safeParse(options.rollout).success) {
    throw new ValidationError('The rollout must be a fraction of devices between 0 and 1.');
  }
  inspectModel(model);
  const files = [...model.files, ...(options.golden?.files ?? [])];
  const createdAt = options.createdAt ?? new Date().toISOString();
  const { manifest, bytes } = await buildManifest({
    ...model.meta,
    sequence: options.sequence ?? sequenceFromVersion(model.meta.version),
    createdAt,
    expiresAt: options.expiresAt ?? daysAfter(createdAt, RELEASE_VALIDITY_DAYS),
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
    [`${dir}manifest.sig.json`, signatureFileBytes(signatures)],
    ...files.map((f) => [`${dir}${f.path}`, f.bytes] as const),
    ...model.samples.map((s) => [`${dir}${s.path}`, s.bytes] as const),
  ]);
  const entry: ReleaseEntry = {
    id: manifest.id, version: manifest.version, sequence: manifest.sequence, title: manifest.title,
    manifest: `${dir}manifest.json`, signature: `${dir}manifest.sig.json`,
    size: manifest.files.reduce((n, f) => n + f.size, 0),
    ...(options.rollout !== undefined ? { rollout: options.rollout } : {}),
    ...(manifest.shadow ? { shadow: true as const } : {}),
  };
  return { manifest, manifestBytes: bytes, signatures, published, entry };
}

/** The single-file sideload bundle of a packed release (manifest, signatures, files). */
export function bundleOf(release: PackedRelease): Uint8Array {
  const dir = `${release.manifest.id}/${release.manifest.version}/`;
  return writeBundle(release.manifestBytes, release.signatures, release.manifest.files.map((f) => ({ path: f.path, bytes: release.published.get(`${dir}${f.path}`)! })));
}

export interface CatalogOptions {
  keys: readonly KeyFile[];
  /** The version of the catalog this one replaces, if any: the new one is always higher. */
  previousVersion?: number;
  now?: Date;
  /** Default: CATALOG_VALIDITY_DAYS from now. */
  expiresAt?: string;
}

/**
 * A signed catalog listing these releases (one entry per id@version; later ones replace earlier
 * ones): `catalog.json` and its detached `catalog.sig.json`. The version is the time in seconds,
 * or the previous one + 1, so a re-signed catalog always supersedes the last one devices saw.
 */
export async function signedCatalog(entries: readonly ReleaseEntry[], options: CatalogOptions): Promise<{ catalog: Uint8Array; signature: Uint8Array }> {
  const now = options.now ?? new Date();
  const byKey = new Map(entries.map((e) => [`${e.id}@${e.version}`, e]));
  const bytes = catalogBytes({
    format: CATALOG_FORMAT,
    version: Math.max((options.previousVersion ?? 0) + 1, Math.floor(now.getTime() / 1000)),
    createdAt: now.toISOString(),
    expiresAt: options.expiresAt ?? daysAfter(now.toISOString(), CATALOG_VALIDITY_DAYS),
    releases: [...byKey.values()],
  });
  const signatures: SignatureFile = { signatures: await Promise.all(options.keys.map((k) => sign(bytes, k))) };
  return { catalog: bytes, signature: signatureFileBytes(signatures) };
}

/** A release folder's catalog as `model:pack` left it: its bytes, and the signatures over them. */
export interface PublishedCatalog {
  catalog: ReleaseCatalog;
  bytes: Uint8Array;
  signatures: SignatureFile;
  /** The ids of the keys that signed it. */
  signers: string[];
}

/** The catalog in `outDir`, or undefined when it has none (one that cannot be read or parsed is an error, never replaced). */
export async function readPublishedCatalog(outDir: string): Promise<PublishedCatalog | undefined> {
  const path = join(outDir, 'catalog.json');
  const bytes = await readFile(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' && error.path === path) return undefined;
    throw error;
  });
  if (!bytes) return undefined;
  let catalog: ReleaseCatalog;
  try {
    catalog = parseCatalog(bytes);
  } catch (error) {
    throw new ValidationError(`${path} is not a catalog model:pack wrote: ${(error as Error).message}`);
  }
  const signaturePath = join(outDir, 'catalog.sig.json');
  const signatureBytes = await readFile(signaturePath).catch(() => undefined);
  let signatures: SignatureFile = { signatures: [] };
  try {
    if (signatureBytes) signatures = parseSignatureFile(signatureBytes);
  } catch {
    throw new ValidationError(`${signaturePath} is not a signature file model:pack wrote.`);
  }
  return { catalog, bytes, signatures, signers: signatures.signatures.map((s) => s.keyId) };
}

/**
 * Refuses to sign over a catalog.json changed since it was signed: signing it again would publish
 * the change unreviewed (a withdrawal dropped, a sequence moved, an old copy restored), and
 * devices would take it as the publisher's word. Checked with the given keys that signed it: the
 * signer re-signs with its own key in every case but a hand-over to a new key (--replace-signer);
 * any other key's signature can only be checked against a trust store (model:verify --trust).
 */
async function checkUnaltered(path: string, bytes: Uint8Array, signatures: SignatureFile, keys: readonly KeyFile[]): Promise<void> {
  const held = keys.filter((k) => signatures.signatures.some((s) => s.keyId === k.keyId));
  if (held.length === 0) return;
  const trust = new TrustStore({ version: 0, keys: held.map((k) => trustEntryFor(k, [])) });
  await trust.signers(bytes, { signatures: signatures.signatures.filter((s) => held.some((k) => k.keyId === s.keyId)) }, 'catalog').catch((error: unknown) => {
    if (!(error instanceof SignatureError)) throw error;
    throw new ValidationError(`${path} was changed after ${held.map((k) => k.keyId).join(', ')} signed it, so nothing was signed: signing it again would publish the change unreviewed (a withdrawal dropped, a sequence moved). Restore the signed copy; change a release's rollout with model:catalog --id --version --rollout, withdraw one with model:withdraw.`, undefined, { cause: error });
  });
}

/**
 * Devices follow the key that signed the first catalog they accepted from a URL and refuse one
 * signed only by another (SECURITY.md, "a URL belongs to one publisher"): so a new key alone may
 * re-sign only when the publisher says the URL changes hands (`replaceSigner`). Nor is a
 * catalog changed since it was signed signed again (checkUnaltered).
 */
async function checkSigner(outDir: string, existing: PublishedCatalog, keys: readonly KeyFile[], replaceSigner = false): Promise<void> {
  await checkUnaltered(join(outDir, 'catalog.json'), existing.bytes, existing.signatures, keys);
  if (replaceSigner || existing.signers.length === 0 || keys.some((k) => existing.signers.includes(k.keyId))) return;
  throw new ValidationError(`${join(outDir, 'catalog.json')} is signed by ${existing.signers.join(', ')}, not by ${keys.map((k) => k.keyId).join(', ')}, and devices that accepted it refuse a catalog from its URL signed only by another key: sign with both keys (--key old.json --key new.json) while devices move over, or hand the URL to the new key with model:catalog --replace-signer.`);
}

/** Devices refuse a release that is not newer than one they may have installed (DowngradeError), the same version packed again included. */
function checkNewer(outDir: string, existing: PublishedCatalog, entry: ReleaseEntry): void {
  const published = existing.catalog.releases.filter((e) => e.id === entry.id);
  const clash = published.find((e) => e.version === entry.version) ?? published.find((e) => e.sequence >= entry.sequence);
  if (!clash) return;
  throw new ValidationError(`${join(outDir, 'catalog.json')} already lists ${clash.id} ${clash.version} (sequence ${clash.sequence}), and devices refuse a release that is not newer than one they may have installed: pack ${entry.id} as a higher version.`);
}

/** Signs the catalog again with `add` in it (an entry of the same id and version replaced). */
async function writeCatalog(outDir: string, existing: PublishedCatalog | undefined, options: Omit<CatalogOptions, 'previousVersion'>, add: readonly ReleaseEntry[]): Promise<void> {
  const { catalog, signature } = await signedCatalog([...(existing?.catalog.releases ?? []), ...add], { ...options, ...(existing ? { previousVersion: existing.catalog.version } : {}) });
  await writeFile(join(outDir, 'catalog.json'), catalog);
  await writeFile(join(outDir, 'catalog.sig.json'), signature);
}

/** Re-signs a release folder's catalog with a new version and expiry (publishers do this before it expires). */
export async function resignCatalog(outDir: string, existing: PublishedCatalog, options: Omit<CatalogOptions, 'previousVersion'> & { replaceSigner?: boolean }): Promise<void> {
  await checkSigner(outDir, existing, options.keys, options.replaceSigner);
  await writeCatalog(outDir, existing, options, []);
}

/**
 * Marks a release the folder's catalog lists as withdrawn, with the reason devices show, and
 * re-signs the catalog (a new version): devices that fetch it stop using that release where
 * another version can answer, and never install it again. Returns the entry as it was before
 * (its `withdrawn` says whether the release was withdrawn already).
 */
export async function withdrawRelease(outDir: string, existing: PublishedCatalog, release: { id: string; version: string; reason: string }, options: Omit<CatalogOptions, 'previousVersion'>): Promise<ReleaseEntry> {
  return changeRelease(outDir, existing, release, { withdrawn: release.reason }, options);
}

/**
 * Sets the fraction of devices a release is rolled out to (raised, lowered, or 0 to halt it) and
 * re-signs the catalog (a new version): devices read it at their next update check. Returns the
 * entry as it was before.
 */
export async function setRollout(outDir: string, existing: PublishedCatalog, release: { id: string; version: string; rollout: number }, options: Omit<CatalogOptions, 'previousVersion'>): Promise<ReleaseEntry> {
  return changeRelease(outDir, existing, release, { rollout: release.rollout }, options);
}

/** One listed release's entry changed, the catalog re-signed; the entry as it was before. */
async function changeRelease(outDir: string, existing: PublishedCatalog, release: { id: string; version: string }, change: Pick<ReleaseEntry, 'withdrawn' | 'rollout'>, options: Omit<CatalogOptions, 'previousVersion'>): Promise<ReleaseEntry> {
  await checkSigner(outDir, existing, options.keys);
  const entry = existing.catalog.releases.find((e) => e.id === release.id && e.version === release.version);
  if (!entry) {
    const listed = existing.catalog.releases.map((e) => `${e.id} ${e.version}`).join(', ') || 'nothing';
    throw new ValidationError(`${join(outDir, 'catalog.json')} does not list ${release.id} ${release.version} (it lists ${listed}): name a release it lists.`);
  }
  await writeCatalog(outDir, existing, options, [{ ...entry, ...change }]);
  return entry;
}

/**
 * Writes a release under `outDir` and adds it to `outDir/catalog.json` (created if absent), signed
 * by `keys`; refuses, before writing anything, what devices would refuse.
 */
export async function writeRelease(outDir: string, release: PackedRelease, options: Omit<CatalogOptions, 'previousVersion'>): Promise<void> {
  const existing = await readPublishedCatalog(outDir);
  if (existing) {
    checkNewer(outDir, existing, release.entry);
    await checkSigner(outDir, existing, options.keys);
  }
  for (const [path, bytes] of release.published) {
    await mkdir(dirname(join(outDir, path)), { recursive: true });
    await writeFile(join(outDir, path), bytes);
  }
  await writeCatalog(outDir, existing, options, [release.entry]);
}

/** A release a second key has countersigned: what its holder vouched for. */
export interface Countersigned {
  id: string;
  version: string;
  sequence: number;
  /** Of the manifest, which names every file's hash. */
  sha256: string;
}

/** `signatures` with each of `keys`' signature over `bytes` added, but for keys that signed already. */
async function withSignatures(signatures: SignatureFile, bytes: Uint8Array, keys: readonly KeyFile[]): Promise<SignatureFile> {
  const signed = new Set(signatures.signatures.map((s) => s.keyId));
  const added = await Promise.all(keys.filter((key) => !signed.has(key.keyId)).map((key) => sign(bytes, key)));
  return { signatures: [...signatures.signatures, ...added] };
}

const countersigned = async (manifest: Manifest, bytes: Uint8Array): Promise<Countersigned> =>
  ({ id: manifest.id, version: manifest.version, sequence: manifest.sequence, sha256: await sha256Hex(bytes) });

/** `path` (from a catalog) inside `outDir`: a catalog handed to a reviewer must not make them write elsewhere. */
function inside(outDir: string, path: string): string {
  const full = join(outDir, path);
  const fromRoot = relative(outDir, full);
  if (fromRoot.startsWith('..') || isAbsolute(fromRoot)) throw new ValidationError(`${join(outDir, 'catalog.json')} lists ${path}, outside ${outDir}: nothing was signed.`);
  return full;
}

/** Reads a JSON document of the release folder, or says which file is not what model:pack wrote. */
async function readPublished<T>(path: string, parse: (bytes: Uint8Array) => T): Promise<{ bytes: Uint8Array; value: T }> {
  const bytes = await readFile(path);
  try {
    return { bytes, value: parse(bytes) };
  } catch (error) {
    throw new ValidationError(`${path} is not what model:pack wrote: ${(error as Error).message}`);
  }
}

/**
 * Adds `keys`' signatures to a release folder's catalog and to every release it lists, for a
 * deployment whose trust store asks more than one key to sign there (a threshold). Each release's
 * files are checked first as a device checks them (every chunk, every file, their sizes), so the
 * second key vouches for what is served;
 * nothing is written until every release checked out.
 */
export async function countersignFolder(outDir: string, keys: readonly KeyFile[]): Promise<Countersigned[]> {
  const catalog = await readPublished(join(outDir, 'catalog.json'), parseCatalog);
  const catalogSignature = await readPublished(join(outDir, 'catalog.sig.json'), parseSignatureFile);
  await checkUnaltered(join(outDir, 'catalog.json'), catalog.bytes, catalogSignature.value, keys);
  const writes: [string, Uint8Array][] = [];
  const releases: Countersigned[] = [];
  for (const entry of catalog.value.releases) {
    const [manifestPath, signaturePath] = [inside(outDir, entry.manifest), inside(outDir, entry.signature)];
    const manifest = await readPublished(manifestPath, parseManifest);
    await assertWholeFiles(manifest.value, folderChunks(dirname(manifestPath))).catch((error: unknown) => {
      if (!(error instanceof LanternError)) throw error;
      throw new ValidationError(`${entry.id} ${entry.version} is not what was packed (${error.message.replace(/\.$/, '')}); nothing was signed.`, error.details, { cause: error });
    });
    const signature = await readPublished(signaturePath, parseSignatureFile);
    writes.push([signaturePath, signatureFileBytes(await withSignatures(signature.value, manifest.bytes, keys))]);
    releases.push(await countersigned(manifest.value, manifest.bytes));
  }
  writes.push([join(outDir, 'catalog.sig.json'), signatureFileBytes(await withSignatures(catalogSignature.value, catalog.bytes, keys))]);
  for (const [path, bytes] of writes) await writeFile(path, bytes);
  return releases;
}

/** A sideload bundle with `keys`' signatures added, once its files passed the device's check (every chunk, every file). */
export async function countersignBundle(bundle: Uint8Array, keys: readonly KeyFile[]): Promise<{ bundle: Uint8Array; release: Countersigned }> {
  const opened = await openBundle(new Blob([bundle as Uint8Array<ArrayBuffer>]));
  const manifest = parseManifest(opened.manifestBytes);
  await assertWholeFiles(manifest, opened.readChunk);
  const files = await Promise.all(manifest.files.map(async (file) => ({
    path: file.path,
    bytes: concatBytes(await Promise.all(file.chunks.map((_, index) => opened.readChunk(file, index)))),
  })));
  return { bundle: writeBundle(opened.manifestBytes, await withSignatures(opened.signatures, opened.manifestBytes, keys), files), release: await countersigned(manifest, opened.manifestBytes) };
}
