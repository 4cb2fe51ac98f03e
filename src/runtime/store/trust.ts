import { z } from 'zod/mini';
import { SignatureError, ValidationError } from '../errors.ts';
import { parseSchema } from '../schema.ts';
import type { TrustStoreStamp } from './floors.ts';
import { fromBase64, sha256Hex, toBase64 } from './bytes.ts';
import { ed25519, type Ed25519PublicKey } from './ed25519.ts';

/**
 * Ed25519 detached signatures over the exact manifest (or catalog) bytes, checked with WebCrypto
 * against a pinned trust store. The trust store is a JSON file deployed with the app
 * (configuration, not code); a manifest may carry several signatures so a publisher can rotate
 * keys. Each key is delegated a scope (TUF's delegated targets): the model ids it may sign,
 * exact (`spam-filter`) or a namespace prefix (`acme/`). A valid signature from a key outside
 * its scope vouches for nothing.
 */

const KeyId = z.string().check(z.regex(/^[A-Za-z0-9._:-]{1,64}$/));
const Base64 = z.string().check(z.regex(/^[A-Za-z0-9+/]+={0,2}$/));

export const SignatureFileSchema = z.object({
  signatures: z.array(z.object({ keyId: KeyId, alg: z.literal('Ed25519'), sig: Base64 })),
});
export type SignatureFile = z.infer<typeof SignatureFileSchema>;

/** An exact model id, or a namespace prefix ending in `/` (every id under it). */
export const ScopeEntry = z.string().check(z.maxLength(100), z.regex(/^[a-z0-9][a-z0-9._-]*(?:\/(?:[a-z0-9][a-z0-9._-]*)?)?$/, 'scope: a model id or a namespace ending in /'));

/**
 * A trust store's version (TUF's root version): every deployment of a changed trust store raises
 * it, and a device refuses one older than the last it accepted, or the same version with other
 * contents (assertTrustStoreNewer, floors.ts), so a stale copy served again cannot bring back a
 * key the deployment revoked. A file without it is version 0, unversioned: what deployments wrote
 * before versions existed, still read, and protected against nothing until the deployment ships a
 * versioned one (after which an unversioned one is older). The build stamps its build time.
 */
const TrustStoreVersion = z.int().check(z.positive());

export const TrustStoreSchema = z.object({
  version: z.optional(TrustStoreVersion),
  keys: z.array(z.object({ keyId: KeyId, publicKey: Base64, name: z.string().check(z.maxLength(200)), scope: z.array(ScopeEntry).check(z.minLength(1), z.maxLength(1000)) })).check(z.maxLength(100)),
});
export type TrustStoreFile = z.infer<typeof TrustStoreSchema>;

/**
 * What a device remembers of a trust store it accepted, from its JSON as served (the saved copy
 * is that JSON). The version is read on its own, so the floor a saved copy sets still holds when
 * the rest of it no longer parses (an app update with a stricter schema). The contents compare
 * the JSON itself: one version names one file.
 */
export function trustStoreStamp(json: unknown): TrustStoreStamp {
  const versioned = z.object({ version: TrustStoreVersion }).safeParse(json);
  return { version: versioned.success ? versioned.data.version : 0, content: JSON.stringify(json) };
}

/** A publisher key as the CLI stores it (never committed, never shipped). */
export const KeyFileSchema = z.object({
  format: z.literal('lantern-key/1'),
  keyId: KeyId,
  name: z.string(),
  publicKey: Base64,
  privateKey: Base64,
});
export type KeyFile = z.infer<typeof KeyFileSchema>;

/** Key ids are derived from the public key, so two keys can never share one by accident. */
async function keyIdFor(publicKeyRaw: Uint8Array): Promise<string> {
  return `ed25519:${(await sha256Hex(publicKeyRaw)).slice(0, 16)}`;
}

export async function generateKey(name: string): Promise<KeyFile> {
  const pair = await crypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify']) as CryptoKeyPair;
  const publicKey = new Uint8Array(await crypto.subtle.exportKey('raw', pair.publicKey));
  const privateKey = new Uint8Array(await crypto.subtle.exportKey('pkcs8', pair.privateKey));
  return { format: 'lantern-key/1', keyId: await keyIdFor(publicKey), name, publicKey: toBase64(publicKey), privateKey: toBase64(privateKey) };
}

export function parseKeyFile(json: unknown): KeyFile {
  return parseSchema(KeyFileSchema, json, 'The signing key file');
}

export async function sign(bytes: Uint8Array, key: KeyFile): Promise<SignatureFile['signatures'][number]> {
  const pkcs8 = fromBase64(key.privateKey);
  if (!pkcs8) throw new ValidationError('The signing key file has a malformed private key.');
  const privateKey = await crypto.subtle.importKey('pkcs8', pkcs8, { name: 'Ed25519' }, false, ['sign']);
  const sig = new Uint8Array(await crypto.subtle.sign({ name: 'Ed25519' }, privateKey, bytes as Uint8Array<ArrayBuffer>));
  return { keyId: key.keyId, alg: 'Ed25519', sig: toBase64(sig) };
}

export const trustEntryFor = (key: KeyFile, scope: readonly string[]): TrustStoreFile['keys'][number] => ({ keyId: key.keyId, publicKey: key.publicKey, name: key.name, scope: [...scope] });

/** Whether a scope (exact ids and `namespace/` prefixes) covers a model id. */
const scopeCovers = (scope: readonly string[], id: string): boolean => scope.some((s) => (s.endsWith('/') ? id.startsWith(s) : s === id));

export function parseSignatureFile(bytes: Uint8Array): SignatureFile {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw new SignatureError('The release signature file is not valid JSON.');
  }
  const parsed = SignatureFileSchema.safeParse(json);
  if (!parsed.success) throw new SignatureError('The release signature file is malformed.');
  return parsed.data;
}

export class TrustStore {
  private readonly keys = new Map<string, Promise<Ed25519PublicKey | undefined>>();
  private readonly byId: Map<string, TrustStoreFile['keys'][number]>;
  readonly entries: TrustStoreFile['keys'];

  constructor(file: TrustStoreFile) {
    this.entries = file.keys;
    this.byId = new Map(file.keys.map((k) => [k.keyId, k]));
    for (const entry of file.keys) {
      const raw = fromBase64(entry.publicKey);
      // A malformed key in the configuration simply trusts nothing.
      this.keys.set(entry.keyId, raw ? ed25519().importPublicKey(raw) : Promise.resolve(undefined));
    }
  }

  static parse(json: unknown): TrustStore {
    return new TrustStore(parseSchema(TrustStoreSchema, json, 'The trust store'));
  }

  /** Whether both trust the same keys, each for the same models. */
  sameKeys(other: TrustStore): boolean {
    return JSON.stringify(this.entries) === JSON.stringify(other.entries);
  }

  /** Whether `keyId` is in the trust store at all (whatever its scope). */
  has(keyId: string): boolean {
    return this.byId.has(keyId);
  }

  /** Whether `keyId` is in the trust store and its scope covers model `id`. */
  allows(keyId: string, id: string): boolean {
    const entry = this.byId.get(keyId);
    return entry !== undefined && scopeCovers(entry.scope, id);
  }

  /**
   * The ids of the trusted keys whose signature over `bytes` verifies, or a SignatureError: no
   * signature at all, signatures only from keys we do not trust, or a trusted key id whose
   * signature does not verify (altered bytes). Only a key's first signature is checked. Scope is
   * checked separately (`authorize`), once the signed bytes have been parsed and the model ids
   * they speak for are known.
   */
  async signers(bytes: Uint8Array, signatures: SignatureFile, what = 'release'): Promise<string[]> {
    if (signatures.signatures.length === 0) throw new SignatureError(`The ${what} is not signed.`);
    let sawTrusted = false;
    const valid: string[] = [];
    // One signature per key counts (its first): a file repeating a trusted key id hundreds of
    // times costs one verification of up to a 4 MiB manifest, not hundreds.
    const tried = new Set<string>();
    for (const s of signatures.signatures) {
      if (tried.has(s.keyId)) continue;
      tried.add(s.keyId);
      const key = await this.keys.get(s.keyId);
      if (!key) continue;
      sawTrusted = true;
      const sig = fromBase64(s.sig);
      if (sig && await ed25519().verify(key, sig, bytes)) valid.push(s.keyId);
    }
    if (valid.length) return valid;
    throw sawTrusted
      ? new SignatureError(`The ${what} signature does not match: it was altered after signing.`)
      : new SignatureError(`The ${what} is not signed by a trusted publisher key.`);
  }

  /**
   * Every one of `signers` whose scope covers every id in `ids` (all of them vouch for the
   * release, so each keeps its own rollback floor: after a key rotation the floor the old key
   * set still binds the new one); otherwise a SignatureError naming the key and the model id it
   * may not sign (the delegation check).
   */
  authorize(signers: readonly string[], ids: readonly string[]): string[] {
    const authorized = signers.filter((k) => ids.every((id) => this.allows(k, id)));
    if (authorized.length) return authorized;
    const key = signers[0] ?? '';
    const id = ids.find((i) => !this.allows(key, i)) ?? '';
    throw new SignatureError(`Key ${key} (${this.byId.get(key)?.name ?? 'unknown'}) is not trusted to sign ${id}; it was refused.`, { keyId: key, id });
  }
}
