import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { SignatureError, ValidationError } from '../../src/runtime/errors.ts';
import { openBundle } from '../../src/runtime/store/bundle.ts';
import { assertWholeFiles } from '../../src/runtime/store/chunk-writer.ts';
import { parseCatalog, type ReleaseEntry } from '../../src/runtime/store/catalog.ts';
import { totalSize, type Manifest } from '../../src/runtime/store/manifest.ts';
import { assertEntryMatches, verifyCatalog, verifyManifest } from '../../src/runtime/store/signed-documents.ts';
import { parseSignatureFile, type TrustStore } from '../../src/runtime/store/trust.ts';
import { fileFor, folderChunks, readListed } from './release-files.ts';

/**
 * `lantern-model verify`: what a device trusting a given trust store would do with a release
 * folder or a bundle, before it is published. The checks are the device's own
 * (src/runtime/store/signed-documents.ts, chunk-writer.ts), so a threshold one key cannot meet, a
 * key signing outside its scope, an expired catalog or a file changed after packing show here,
 * not on a device in the field.
 */

/**
 * One signed document, and whether a device would take it. `lacksSignatures`: refused only for
 * want of more keys' signatures (a threshold), which another key holder's `model:sign` mends.
 */
export type Verdict = { what: string } & ({ accepted: true; detail: string } | { accepted: false; reason: string; lacksSignatures: boolean });

/** The names of the keys that vouch, as the trust store calls them. */
const vouchers = (trust: TrustStore, keyIds: readonly string[]) => keyIds.map((k) => `${trust.entries.find((e) => e.keyId === k)?.name ?? k} (${k})`).join(', ');
const kilobytes = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

/** The verdict of `check`: accepted with its detail, or refused with the sentence the device's error gives. */
async function verdict(what: string, check: () => Promise<string>): Promise<Verdict> {
  try {
    return { what, accepted: true, detail: await check() };
  } catch (error) {
    const lacksSignatures = error instanceof SignatureError && typeof error.details.required === 'number';
    return { what, accepted: false, reason: (error as Error).message, lacksSignatures };
  }
}

const acceptedRelease = (trust: TrustStore, manifest: Manifest, keyIds: readonly string[]) =>
  `signed by ${vouchers(trust, keyIds)}; ${manifest.files.length} file${manifest.files.length === 1 ? '' : 's'}, ${kilobytes(totalSize(manifest))}, every chunk as its manifest says`;

/** The catalog of a release folder, then every release it lists. */
export async function verifyFolder(outDir: string, trust: TrustStore): Promise<Verdict[]> {
  const catalogBytes = await readListed(join(outDir, 'catalog.json'));
  const catalogSignatures = await readFile(join(outDir, 'catalog.sig.json')).catch(() => undefined);
  const verdicts = [await verdict('catalog.json', async () => {
    if (!catalogSignatures) throw new ValidationError('The model catalog is not signed (no catalog.sig.json).');
    const { catalog, keyIds } = await verifyCatalog(trust, catalogBytes, parseSignatureFile(catalogSignatures));
    return `version ${catalog.version}, ${catalog.releases.length} release${catalog.releases.length === 1 ? '' : 's'}, valid until ${catalog.expiresAt.slice(0, 10)}; signed by ${vouchers(trust, keyIds)}`;
  })];
  // The releases are checked whatever became of the catalog's signature: each can also be
  // installed on its own. A catalog that does not parse lists nothing (its verdict says why).
  let releases: ReleaseEntry[] = [];
  try {
    releases = parseCatalog(catalogBytes).releases;
  } catch {
    return verdicts;
  }
  for (const entry of releases) {
    verdicts.push(await verdict(`${entry.id} ${entry.version}${entry.withdrawn === undefined ? '' : ` (withdrawn: "${entry.withdrawn}")`}`, async () => {
      const manifestPath = fileFor(outDir, entry.manifest);
      const { manifest, keyIds } = await verifyManifest(trust, await readListed(manifestPath), parseSignatureFile(await readListed(fileFor(outDir, entry.signature))));
      assertEntryMatches(entry, manifest);
      await assertWholeFiles(manifest, folderChunks(dirname(manifestPath)));
      return acceptedRelease(trust, manifest, keyIds);
    }));
  }
  return verdicts;
}

/** A sideload bundle (`label`: how to name it), as a device installing it would check it. */
export function verifyBundle(label: string, bundle: Uint8Array, trust: TrustStore): Promise<Verdict> {
  return verdict(label, async () => {
    const opened = await openBundle(new Blob([bundle as Uint8Array<ArrayBuffer>]));
    const { manifest, keyIds } = await verifyManifest(trust, opened.manifestBytes, opened.signatures);
    await assertWholeFiles(manifest, opened.readChunk);
    return `${manifest.id} ${manifest.version} (sequence ${manifest.sequence}), ${acceptedRelease(trust, manifest, keyIds)}`;
  });
}
