import { describe, expect, it } from 'vitest';
import { createEd25519 } from './ed25519.ts';
import { fromBase64 } from './bytes.ts';
import { generateKey, sign } from './trust.ts';

/** A WebCrypto as in Chrome < 137, Firefox < 129, Safari < 17: everything but Ed25519. */
function withoutEd25519(subtle: SubtleCrypto): SubtleCrypto {
  const refuse = (algorithm: AlgorithmIdentifier) => (typeof algorithm === 'string' ? algorithm : algorithm.name) === 'Ed25519';
  return new Proxy(subtle, {
    get(target, property) {
      if (property === 'importKey') {
        return (format: 'raw', data: BufferSource, algorithm: AlgorithmIdentifier, extractable: boolean, usages: KeyUsage[]) => (refuse(algorithm)
          ? Promise.reject(new DOMException('Unrecognized name.', 'NotSupportedError'))
          : target.importKey(format, data, algorithm, extractable, usages));
      }
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

describe.each([
  ['WebCrypto', () => crypto.subtle, 'webcrypto'],
  ['a browser without WebCrypto Ed25519', () => withoutEd25519(crypto.subtle), 'noble'],
] as const)('Ed25519 on %s', (_, subtle, expected) => {
  it(`verifies with ${expected}: a good signature passes, an altered message, signature or key fails`, async () => {
    const ed = createEd25519(subtle());
    expect(await ed.implementation).toBe(expected);
    const key = await generateKey('publisher');
    const other = await generateKey('someone else');
    const message = new TextEncoder().encode('{"format":"lantern-manifest/1"}');
    const signature = fromBase64((await sign(message, key)).sig)!;
    const publicKey = (await ed.importPublicKey(fromBase64(key.publicKey)!))!;
    expect(publicKey.implementation).toBe(expected);
    expect(await ed.verify(publicKey, signature, message)).toBe(true);
    const altered = message.slice();
    altered[3]! ^= 1;
    expect(await ed.verify(publicKey, signature, altered)).toBe(false);
    const flipped = signature.slice();
    flipped[10]! ^= 1;
    expect(await ed.verify(publicKey, flipped, message)).toBe(false);
    expect(await ed.verify((await ed.importPublicKey(fromBase64(other.publicKey)!))!, signature, message)).toBe(false);
    expect(await ed.verify(publicKey, signature.subarray(0, 63), message)).toBe(false);
    expect(await ed.importPublicKey(new Uint8Array(31))).toBeUndefined();
  });
});
