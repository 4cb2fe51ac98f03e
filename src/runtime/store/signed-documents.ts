import { ValidationError } from '../errors.ts';
import { assertCatalogFresh, parseCatalog, type ReleaseCatalog, type ReleaseEntry } from './catalog.ts';
import { assertNotExpired, parseManifest, totalSize, type Manifest } from './manifest.ts';
import type { SignatureFile, TrustStore } from './trust.ts';

/*
 * What makes a signed document acceptable, in the order a device checks it: signature against the
 * trust store, then schema, then the signing keys' scopes and thresholds over the model ids, then
 * expiry; nothing in it is trusted before. One place for the device (installer, registry) and for
 * the publisher's `lantern-model verify`, so what the tool says is what a device does.
 */

/** A release manifest a device would install, and the keys that vouch for it; else the typed error it would refuse it with. */
export async function verifyManifest(trust: TrustStore, bytes: Uint8Array, signatures: SignatureFile): Promise<{ manifest: Manifest; keyIds: string[] }> {
  const signers = await trust.signers(bytes, signatures);
  const manifest = parseManifest(bytes);
  const keyIds = trust.authorize(signers, [manifest.id]);
  assertNotExpired(manifest);
  return { manifest, keyIds };
}

/**
 * A catalog a device would accept, and the keys that vouch for it; else the typed error. What a
 * device remembers is not checked here: the version floor of the catalog's URL, and which key
 * signed the first catalog it accepted from there (ModelStore.acceptCatalog).
 */
export async function verifyCatalog(trust: TrustStore, bytes: Uint8Array, signatures: SignatureFile): Promise<{ catalog: ReleaseCatalog; keyIds: string[] }> {
  const signers = await trust.signers(bytes, signatures, 'model catalog');
  const catalog = parseCatalog(bytes);
  const keyIds = trust.authorizeCatalog(signers, catalog.releases.map((r) => r.id));
  assertCatalogFresh(catalog);
  return { catalog, keyIds };
}

/**
 * A catalog entry must describe the release it points to (mix-and-match protection): the size a
 * user was asked to accept must be the signed one, and a release the Update button announced as
 * evaluated in shadow first must ask for it (the other way round it is only more careful than
 * announced). Fields the caller does not know are not compared.
 */
export function assertEntryMatches(entry: Partial<Pick<ReleaseEntry, 'id' | 'version' | 'sequence' | 'size' | 'shadow'>>, manifest: Manifest): void {
  if ((entry.id !== undefined && entry.id !== manifest.id) || (entry.version !== undefined && entry.version !== manifest.version)
    || (entry.sequence !== undefined && entry.sequence !== manifest.sequence) || (entry.size !== undefined && entry.size !== totalSize(manifest))
    || (entry.shadow && !manifest.shadow)) {
    throw new ValidationError('The catalog entry does not match the release it points to.');
  }
}
