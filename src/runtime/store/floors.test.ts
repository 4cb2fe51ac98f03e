import { describe, expect, it } from 'vitest';
import { DowngradeError, SignatureError } from '../errors.ts';
import { MAX_CATALOG_IDS } from '../schema-limits.ts';
import { ALL_KEYS, assertNewer, assertTrustStoreNewer, catalogStampAfter, effectiveFloor, raiseFloor, type CatalogStamp, type TrustedFor } from './floors.ts';
import { trustStoreStamp } from './trust.ts';

const release = (sequence: number, manifest = 'a') => ({ id: 'm', version: `v${sequence}`, sequence, manifest });
const onlyGood = (keyId: string) => keyId === 'good';

describe('sequence floors', () => {
  it('a legacy floor (no key recorded) always counts', () => {
    const legacy = { id: 'm', highest: 5 };
    expect(effectiveFloor(legacy, () => false)).toBe(5);
    expect(() => assertNewer(legacy, release(4), onlyGood)).toThrow(DowngradeError);
    // Its manifest is unknown, so an equal sequence is not judged against it.
    expect(() => assertNewer(legacy, release(5), onlyGood)).not.toThrow();
  });

  it('each key keeps its own floor; only trusted keys\' floors count', () => {
    let record = raiseFloor(undefined, 'm', { keyIds: ['good'], sequence: 3, manifest: 'g3' });
    record = raiseFloor(record, 'm', { keyIds: ['rogue'], sequence: Number.MAX_SAFE_INTEGER, manifest: 'r' });
    expect(effectiveFloor(record, ALL_KEYS)).toBe(Number.MAX_SAFE_INTEGER);
    expect(effectiveFloor(record, onlyGood)).toBe(3);
    expect(() => assertNewer(record, release(4), ALL_KEYS)).toThrow(DowngradeError);
    expect(() => assertNewer(record, release(4), onlyGood)).not.toThrow();
    expect(() => assertNewer(record, release(3, 'other'), onlyGood)).toThrow(/reuses the sequence number/);
    expect(() => assertNewer(record, release(3, 'g3'), onlyGood)).not.toThrow();
  });

  it('a lower activation by the same key (a rollback target re-activated) never lowers its floor', () => {
    const record = raiseFloor(raiseFloor(undefined, 'm', { keyIds: ['good'], sequence: 9, manifest: 'x' }), 'm', { keyIds: ['good'], sequence: 2, manifest: 'y' });
    expect(effectiveFloor(record, ALL_KEYS)).toBe(9);
  });

  it('a release signed by two keys raises both floors, so either key alone still holds it', () => {
    const record = raiseFloor(raiseFloor(undefined, 'm', { keyIds: ['old'], sequence: 2, manifest: 'a' }), 'm', { keyIds: ['old', 'new'], sequence: 3, manifest: 'b' });
    expect(record.floors).toEqual([{ keyId: 'old', sequence: 3, manifest: 'b' }, { keyId: 'new', sequence: 3, manifest: 'b' }]);
    expect(effectiveFloor(record, (keyId) => keyId === 'new')).toBe(3);
    // No key known (a store written before keys were recorded): one floor, always in force.
    expect(raiseFloor(undefined, 'm', { keyIds: [], sequence: 4 }).floors).toEqual([{ sequence: 4 }]);
  });
});

describe('catalog acceptance', () => {
  const url = 'https://models.example/catalog.json';
  const stamp = (version: number, keyIds: string[], sha256 = `sha${version}`, ids?: string[]) => ({ url, version, sha256, keyIds, ...(ids ? { ids } : {}) });
  const everyKey = () => true;
  /** Accepts `next` (listing `listed`) after `last`: the stamp kept, or the error's class. */
  const after = (last: CatalogStamp | undefined, next: CatalogStamp & { keyIds: string[] }, trusted: TrustedFor = everyKey, listed: string[] = []) => {
    try {
      return catalogStampAfter(last, next, listed, trusted);
    } catch (error) {
      return (error as Error).constructor;
    }
  };

  it('a stamp from before signers were recorded binds every signer to its version, and pins none', () => {
    const legacy = { url, version: 5, sha256: 'sha5' };
    expect(after(legacy, stamp(4, ['any']))).toBe(DowngradeError);
    expect(after(legacy, stamp(6, ['any']))).toEqual({ ...stamp(6, ['any']), ids: [] });
  });

  it('the publisher followed at a URL must sign there while any of its keys is trusted', () => {
    const last = stamp(5, ['old', 'new']);
    expect(after(last, stamp(6, ['new']))).toMatchObject(stamp(6, ['new']));
    expect(after(last, stamp(6, ['other']))).toBe(SignatureError);
    expect(after(last, stamp(4, ['new']))).toBe(DowngradeError);
    expect(after(last, stamp(5, ['new'], 'changed'))).toBe(DowngradeError);
    expect(after(last, stamp(5, ['new']))).toMatchObject(stamp(5, ['new']));
    // Neither key trusted any more: another publisher may take the URL over, at any version.
    expect(after(last, stamp(1, ['other']), (k) => k === 'other')).toMatchObject(stamp(1, ['other']));
  });

  it('keeps every id the publisher listed there, and releases the URL once its keys no longer cover them all, however little the last catalog listed', () => {
    const first = after(undefined, stamp(5, ['old', 'new']), everyKey, ['demo', 'acme/a']) as CatalogStamp;
    expect(first.ids).toEqual(['acme/a', 'demo']);
    // An empty catalog (a freeze) keeps the URL's ids.
    const frozen = after(first, stamp(9, ['new']), everyKey, []) as CatalogStamp;
    expect(frozen.ids).toEqual(['acme/a', 'demo']);
    // 'new' narrowed to acme/ no longer covers demo: the URL is released; the next publisher's ids start afresh.
    const narrowed: TrustedFor = (keyId, ids) => keyId === 'old' || ids.every((id) => id.startsWith('acme/'));
    expect(after(frozen, stamp(6, ['old']), narrowed, ['demo'])).toEqual({ ...stamp(6, ['old']), ids: ['demo'] });
    // While it still covers them, it stays in charge.
    expect(after(frozen, stamp(10, ['old']), everyKey, ['demo'])).toBe(SignatureError);
  });

  it('remembers at most one full catalog\'s worth of ids, the latest catalog\'s first', () => {
    const made = (n: number, from: number) => Array.from({ length: n }, (_, i) => `acme/m${from + i}`);
    let last = after(undefined, stamp(1, ['k']), everyKey, made(1000, 0)) as CatalogStamp;
    last = after(last, stamp(2, ['k']), everyKey, made(1000, 1000)) as CatalogStamp;
    expect(last.ids).toHaveLength(MAX_CATALOG_IDS);
    expect(last.ids).toEqual([...made(1000, 1000)].sort());
    last = after(last, stamp(3, ['k']), everyKey, ['demo']) as CatalogStamp;
    expect(last.ids).toHaveLength(MAX_CATALOG_IDS);
    expect(last.ids).toContain('demo');
  });
});

describe('trust store versions (TUF root rollback)', () => {
  const file = (version: number | undefined, keys: string[]) => trustStoreStamp({ ...(version !== undefined ? { version } : {}), keys });

  it('refuses an older version, or the same version with other contents; takes the same file or a newer one', () => {
    const last = file(2, ['good']);
    expect(() => assertTrustStoreNewer(last, file(1, ['good', 'rogue']))).toThrow(DowngradeError);
    expect(() => assertTrustStoreNewer(last, file(2, ['good', 'rogue']))).toThrow(/reuses version 2 with other contents/);
    expect(() => assertTrustStoreNewer(last, file(2, ['good']))).not.toThrow();
    expect(() => assertTrustStoreNewer(last, file(3, ['good', 'rogue']))).not.toThrow();
    expect(() => assertTrustStoreNewer(undefined, file(1, ['good']))).not.toThrow();
  });

  it('an unversioned file is version 0: any may replace another, none replaces a versioned one', () => {
    expect(() => assertTrustStoreNewer(file(undefined, ['good', 'rogue']), file(undefined, ['good']))).not.toThrow();
    expect(() => assertTrustStoreNewer(file(undefined, ['good']), file(1, ['good']))).not.toThrow();
    expect(() => assertTrustStoreNewer(file(1, ['good']), file(undefined, ['good']))).toThrow(/older than one this device already accepted \(version 0, last 1\)/);
  });

  it('the floor a saved copy sets holds even when the rest of it no longer parses', () => {
    expect(trustStoreStamp({ version: 7, keys: 'a format this app no longer reads' }).version).toBe(7);
    expect(trustStoreStamp({ version: 'seven', keys: [] }).version).toBe(0);
  });
});
