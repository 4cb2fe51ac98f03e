import { describe, expect, it } from 'vitest';
import { NetworkError, ValidationError } from '../errors.ts';
import type { Release } from './catalog.ts';
import { catalogAddress, releasesFrom, SavedCatalogs, type KeyValueStorage } from './catalog-sources.ts';

function memory(): KeyValueStorage & { map: Map<string, string> } {
  const map = new Map<string, string>();
  return { map, getItem: (k) => map.get(k) ?? null, setItem: (k, v) => void map.set(k, v) };
}

const release = (id: string): Release => ({ id, version: '1.0.0', sequence: 1, manifest: 'm', signature: 's', size: 1, manifestUrl: 'u', signatureUrl: 'v' });

describe('saved catalogs', () => {
  it('remembers catalogs newest first without duplicates, and survives garbage', () => {
    const storage = memory();
    const saved = new SavedCatalogs(storage);
    saved.add('https://a.example/catalog.json');
    saved.add('https://b.example/catalog.json');
    saved.add('https://a.example/catalog.json');
    expect(new SavedCatalogs(storage).list()).toEqual(['https://a.example/catalog.json', 'https://b.example/catalog.json']);
    storage.map.set('lantern.catalogs', '{broken');
    expect(saved.list()).toEqual([]);
    expect(new SavedCatalogs(undefined).list()).toEqual([]);
  });

  it('accepts http(s) addresses, relative to the app, and refuses others without echoing them', () => {
    expect(catalogAddress(' https://m.example/c.json ', 'https://app.example/')).toBe('https://m.example/c.json');
    expect(catalogAddress('releases/catalog.json', 'https://app.example/x/')).toBe('https://app.example/x/releases/catalog.json');
    for (const bad of ['javascript:alert(1)', 'ftp://m.example/c.json', '   ', 'http://[bad']) {
      const error = (() => { try { catalogAddress(bad, 'https://app.example/'); } catch (e) { return e; } })();
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as Error).message).not.toContain(bad.trim() || '\u0000');
    }
  });

  it('merges the deployment catalog with saved ones; one failing catalog hides nothing else', async () => {
    const catalogs: Record<string, Release[] | Error> = { default: [release('a')], 'https://x/c.json': new NetworkError('down'), 'https://y/c.json': [release('b')] };
    const fetchOne = async (url = 'default') => {
      const value = catalogs[url]!;
      if (value instanceof Error) throw value;
      return value;
    };
    expect((await releasesFrom(fetchOne, ['https://x/c.json', 'https://y/c.json'])).map((r) => r.id)).toEqual(['a', 'b']);
    catalogs.default = new NetworkError('offline');
    catalogs['https://y/c.json'] = new NetworkError('down too');
    await expect(releasesFrom(fetchOne, ['https://x/c.json', 'https://y/c.json'])).rejects.toThrow('offline');
  });
});
