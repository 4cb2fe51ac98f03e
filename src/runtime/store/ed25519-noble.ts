import { verifyAsync } from '@noble/ed25519';

/**
 * The pure-JS Ed25519 check for browsers whose WebCrypto lacks it (ed25519.ts loads this module
 * only there, so other browsers never download it). Strict RFC 8032 (`zip215: false`), as
 * WebCrypto is; malformed signatures or keys are simply not valid.
 */
export async function verifyWithNoble(publicKey: Uint8Array, signature: Uint8Array, message: Uint8Array): Promise<boolean> {
  try {
    return await verifyAsync(signature, message, publicKey, { zip215: false });
  } catch {
    return false;
  }
}
