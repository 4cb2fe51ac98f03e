import { importForAction } from '../field/lazy-chunk.ts';

/**
 * Ed25519 signature verification where the browser has it and where it does not. WebCrypto
 * gained Ed25519 late (Chrome 137, Firefox 129, Safari 17); on an older browser every install
 * would otherwise fail with "not signed by a trusted key", a false accusation. There the same
 * check runs in @noble/ed25519 (audited, about 5 KB, loaded only on such browsers:
 * ed25519-noble.ts) with strict RFC 8032 rules, so both paths accept and refuse the same
 * signatures.
 * Which path runs is decided once, by verifying a known-good RFC 8032 test vector.
 */

/** A public key ready to verify with, whichever implementation holds it. */
export type Ed25519PublicKey =
  | { readonly implementation: 'webcrypto'; readonly key: CryptoKey }
  | { readonly implementation: 'noble'; readonly raw: Uint8Array };

export interface Ed25519 {
  readonly implementation: Promise<'webcrypto' | 'noble'>;
  /** `undefined` for a key that is not a valid 32-byte Ed25519 public key. */
  importPublicKey(raw: Uint8Array): Promise<Ed25519PublicKey | undefined>;
  verify(key: Ed25519PublicKey, signature: Uint8Array, message: Uint8Array): Promise<boolean>;
}

const hex = (s: string) => Uint8Array.from(s.match(/../g)!, (b) => parseInt(b, 16));
/** RFC 8032 §7.1, TEST 1 (empty message). */
const VECTOR = {
  publicKey: hex('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a'),
  signature: hex('e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b'),
};

const ED25519 = { name: 'Ed25519' } as const;
const buffer = (bytes: Uint8Array) => bytes as Uint8Array<ArrayBuffer>;

async function webCryptoWorks(subtle: SubtleCrypto): Promise<boolean> {
  try {
    const key = await subtle.importKey('raw', buffer(VECTOR.publicKey), ED25519, false, ['verify']);
    return await subtle.verify(ED25519, key, buffer(VECTOR.signature), new Uint8Array(0));
  } catch {
    return false;
  }
}

/** An Ed25519 verifier over `subtle` (a parameter so that tests can offer one without Ed25519). */
export function createEd25519(subtle: SubtleCrypto): Ed25519 {
  const implementation = webCryptoWorks(subtle).then((works) => (works ? 'webcrypto' as const : 'noble' as const));
  return {
    implementation,
    async importPublicKey(raw) {
      if (raw.length !== 32) return undefined;
      if ((await implementation) === 'noble') return { implementation: 'noble', raw: raw.slice() };
      const key = await subtle.importKey('raw', buffer(raw), ED25519, false, ['verify']).catch(() => undefined);
      return key && { implementation: 'webcrypto', key };
    },
    async verify(key, signature, message) {
      if (key.implementation === 'webcrypto') return subtle.verify(ED25519, key.key, buffer(signature), buffer(message));
      const { verifyWithNoble } = await importForAction(() => import('./ed25519-noble.ts'));
      return verifyWithNoble(key.raw, signature, message);
    },
  };
}

let shared: Ed25519 | undefined;
/** The verifier for this browser (detected once, on first use). */
export const ed25519 = (): Ed25519 => (shared ??= createEd25519(globalThis.crypto.subtle));
