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

/** Whether a scope (exact ids and `namespace/` prefixes) covers a model id. */
const scopeCovers = (scope: readonly string[], id: string): boolean => scope.some((s) => (s.endsWith('/') ? id.startsWith(s) : s === id));

/** Whether a scope covers all of a scope entry: a model id, or every id of a namespace. */
const scopeIncludes = (scope: readonly string[], entry: string): boolean =>
  entry.endsWith('/') ? scope.some((s) => s.endsWith('/') && entry.startsWith(s)) : scopeCovers(scope, entry);

/** Different keys, counted by public key: one key listed under two ids is still one signer. */
const distinctKeys = (keys: readonly { publicKey: string }[]): number => new Set(keys.map((k) => k.publicKey)).size;

const Scope = z.array(ScopeEntry).check(z.minLength(1), z.maxLength(1000));

/**
 * How many different trusted keys must sign what speaks for the ids a scope covers (TUF's role
 * threshold): a release, and a catalog listing one of them. With 2, one stolen or careless key
 * alone can neither ship such a model nor raise its catalog's version floor. Without an entry
 * covering an id, one in-scope signature is enough.
 */
const Threshold = z.object({ scope: Scope, signatures: z.int().check(z.gte(1), z.lte(100)) });

export const TrustStoreSchema = z.object({
  version: z.optional(TrustStoreVersion),
  keys: z.array(z.object({ keyId: KeyId, publicKey: Base64, name: z.string().check(z.maxLength(200)), scope: Scope })).check(z.maxLength(100)),
  thresholds: z.optional(z.array(Threshold).check(z.maxLength(100))),
});
export type TrustStoreFile = z.infer<typeof TrustStoreSchema>;

/**
 * The thresholds a trust store's keys cannot reach, in words: each would refuse every release in
 * its scope. The build refuses such a trust store; a device accepts it (refusing it would keep
 * the one before, whose keys may include the one just revoked) and installs nothing there.
 */
export function unreachableThresholds(file: TrustStoreFile): string[] {
  return (file.thresholds ?? []).flatMap((threshold) => threshold.scope.flatMap((entry) => {
    const keys = distinctKeys(file.keys.filter((k) => scopeIncludes(k.scope, entry)));
    return keys < threshold.signatures ? [`${entry} needs ${threshold.signatures} signatures from different keys, but only ${keys} key${keys === 1 ? '' : 's'} may sign all of it`] : [];
  }));
}

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
  private readonly thresholds: NonNullable<TrustStoreFile['thresholds']>;

  constructor(file: TrustStoreFile) {
    this.entries = file.keys;
    this.thresholds = file.thresholds ?? [];
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

  /** Whether both trust the same keys, each for the same models, with the same thresholds. */
  sameTrust(other: TrustStore): boolean {
    return JSON.stringify([this.entries, this.thresholds]) === JSON.stringify([other.entries, other.thresholds]);
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
    if (sawTrusted) throw new SignatureError(`The ${what} signature does not match: it was altered after signing.`);
    // Which keys signed and which are trusted: what a publisher needs when their new key is not in
    // the trust store a device uses (an older one it kept, say). Key ids are checked strings.
    const signedBy = [...tried].slice(0, 3).join(', ');
    throw new SignatureError(`The ${what} is not signed by a trusted publisher key: it is signed by ${signedBy}, and this device trusts ${this.entries.map((e) => `${e.name} (${e.keyId})`).join(', ') || 'no key'}.`);
  }

  /** How many different keys must sign for `entry` (an id, or a namespace): the highest threshold over a scope overlapping it; 1 without one. */
  private required(entry: string): number {
    const overlapping = this.thresholds.filter((t) => t.scope.some((s) => scopeCovers([s], entry) || scopeCovers([entry], s)));
    return Math.max(1, ...overlapping.map((t) => t.signatures));
  }

  /** A SignatureError unless `authorized` are as many different keys as the strictest threshold over `entries` asks. */
  private assertThreshold(authorized: readonly string[], entries: readonly string[]): void {
    const asked = entries.map((entry) => this.required(entry));
    const required = Math.max(1, ...asked);
    const signed = distinctKeys(authorized.map((k) => this.byId.get(k)!));
    if (signed >= required) return;
    const strictest = entries[asked.indexOf(required)]!;
    const names = authorized.map((k) => this.byId.get(k)!.name).join(', ');
    throw new SignatureError(`${strictest} needs signatures from ${required} different trusted keys, and this has ${signed} (${names}); it was refused.`, { id: strictest, required, signed });
  }

  /** The signers whose scope covers every id in `ids`, or a SignatureError naming a key and the id it may not sign (the delegation check). */
  private delegated(signers: readonly string[], ids: readonly string[]): string[] {
    const delegated = signers.filter((k) => ids.every((id) => this.allows(k, id)));
    if (delegated.length > 0) return delegated;
    const key = signers[0] ?? '';
    const id = ids.find((i) => !this.allows(key, i)) ?? '';
    throw new SignatureError(`Key ${key} (${this.byId.get(key)?.name ?? 'unknown'}) is not trusted to sign ${id}; it was refused.`, { keyId: key, id });
  }

  /**
   * Every one of `signers` whose scope covers every id in `ids` (all of them vouch for the
   * release, so each keeps its own rollback floor: after a key rotation the floor the old key
   * set still binds the new one), once there are as many different ones as the strictest
   * threshold over `ids` asks; otherwise a SignatureError naming the key and the model id it may
   * not sign (the delegation check), or the id and how many signatures it lacks.
   */
  authorize(signers: readonly string[], ids: readonly string[]): string[] {
    const authorized = this.delegated(signers, ids);
    this.assertThreshold(authorized, ids);
    return authorized;
  }

  /**
   * As `authorize`, for a catalog listing `ids`: it must also meet every threshold over its
   * signers' scopes, whatever it lists, so that one key cannot move a catalog URL's version
   * floor with a catalog that lists nothing under a threshold (a fast-forward that freezes it).
   */
  authorizeCatalog(signers: readonly string[], ids: readonly string[]): string[] {
    const authorized = this.delegated(signers, ids);
    this.assertThreshold(authorized, [...ids, ...authorized.flatMap((k) => this.byId.get(k)!.scope)]);
    return authorized;
  }
}
