import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResolvedConfig } from 'vite';
import { afterEach, describe, expect, it } from 'vitest';
import { pageRevision } from './page-revision.ts';

let dir: string;
afterEach(() => rm(dir, { recursive: true, force: true }));

/** The revisions the service worker would precache for a build whose registry-config.json allows `origins`. */
async function revisions(origins?: string[]): Promise<Record<string, string | null>> {
  dir = await mkdtemp(join(tmpdir(), 'lantern-pages-'));
  if (origins) await writeFile(join(dir, 'registry-config.json'), JSON.stringify({ catalogUrl: 'models/catalog.json', allowedOrigins: origins }));
  const pages = pageRevision();
  (pages.plugin.configResolved as (config: Pick<ResolvedConfig, 'root' | 'build'>) => void)({ root: dir, build: { outDir: '.' } as ResolvedConfig['build'] });
  const { manifest } = await pages.manifestTransform([
    { url: 'index.html', revision: 'abc', size: 100 },
    { url: 'assets/index-abcdefgh.js', revision: null, size: 1000 },
    { url: 'offline-files.json', revision: 'def', size: 10 },
  ]);
  return Object.fromEntries(manifest.map((entry) => [entry.url, entry.revision]));
}

describe('pageRevision: a precached page is fetched again when its headers change', () => {
  it('gives index.html another revision when the build allows another model origin, so installed apps get the new CSP', async () => {
    const one = await revisions(['https://models.example.org']);
    const again = await revisions(['https://models.example.org']);
    const two = await revisions(['https://models.example.org', 'https://mirror.example.org']);
    const none = await revisions();
    expect(again).toEqual(one);
    expect(two['index.html']).not.toBe(one['index.html']);
    expect(none['index.html']).not.toBe(one['index.html']);
    // Only pages carry the CSP that matters here; other files keep workbox's revision.
    for (const r of [one, two, none]) expect([r['assets/index-abcdefgh.js'], r['offline-files.json']]).toEqual([null, 'def']);
  });
});
