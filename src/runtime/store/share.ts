import { IntegrityError, StorageError, ValidationError } from '../errors.ts';
import { bundleParts } from './bundle.ts';
import { assertNotExpired, parseManifest } from './manifest.ts';
import type { ModelStore } from './model-store.ts';
import { readVerified } from './verified-read.ts';

/**
 * A signed `.lantern` bundle of an installed version, to hand to a device with no connection
 * (device-to-device sharing). The stored bytes are re-verified first, so a corrupted copy is
 * never passed on; the receiving device verifies the bundle like any download. Loaded when the
 * user shares, not with the first screen (the initial JavaScript budget).
 */
export async function exportBundle(store: ModelStore, key: string): Promise<{ name: string; blob: Blob }> {
  const [version, record] = await Promise.all([store.version(key), store.manifest(key)]);
  if (!version || !record || version.status !== 'ready') throw new StorageError('Only a completely installed version can be shared.', { key });
  // Kept answering only because nothing else can (ModelStore.withdraw): passing it on would
  // spread the release its publisher took back to devices that have not read the withdrawal.
  if (version.withdrawn !== undefined) throw new ValidationError(`${version.id} ${version.version} was withdrawn by its publisher (${version.withdrawn}); it keeps answering here until another version can, but it cannot be shared.`, { key });
  const manifest = parseManifest(new Uint8Array(record.bytes));
  try {
    // The receiving device checks expiry like any install: a bundle it must refuse is not made.
    assertNotExpired(manifest);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    throw new ValidationError(`${manifest.id} ${manifest.version} has expired (or carries no expiry date), so another device would refuse it; it cannot be shared. It keeps answering here.`, { ...error.details, key });
  }
  const read = await readVerified(store, manifest);
  if (!read.ok) throw new IntegrityError(`The stored copy of ${manifest.id} ${manifest.version} no longer matches its signed manifest; it cannot be shared.`, { key });
  const files = manifest.files.map((f) => ({ path: f.path, bytes: read.byPath.get(f.path)! }));
  const parts = bundleParts(new Uint8Array(record.bytes), record.signatures, files);
  return { name: `${manifest.id}-${manifest.version}.lantern`, blob: new Blob(parts, { type: 'application/octet-stream' }) };
}
