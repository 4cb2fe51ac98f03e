import 'fake-indexeddb/auto';
import { beforeAll, expect, it, vi } from 'vitest';
import { OriginPolicy } from './net.ts';
import { ModelRegistry } from './registry.ts';
import { FakeServer, freshStore, keyAndTrust, makeRelease, ORIGIN, urls } from './test-helpers.ts';
import type { KeyFile, TrustStore } from './trust.ts';

let key: KeyFile;
let trust: TrustStore;
beforeAll(async () => ({ key, trust } = await keyAndTrust()));

// The install code and the download code are chunks of their own; on a first visit cut by a lost
// connection, before the service worker kept them, their load fails.
const cut = new Set<string>();
const linkCut = () => new TypeError('Failed to fetch dynamically imported module');
vi.mock('./installer.ts', async (importOriginal) => {
  if (cut.has('installer')) throw linkCut();
  return importOriginal();
});
vi.mock('./downloader.ts', async (importOriginal) => {
  if (cut.has('downloader')) throw linkCut();
  return importOriginal();
});

it('install code that cannot load is a NetworkError; the next try loads it and the download resumes', async () => {
  const store = await freshStore();
  const server = new FakeServer();
  server.add(await makeRelease(key, { version: '1.0.0', sequence: 1 }));
  const registry = new ModelRegistry({ store, trust, policy: new OriginPolicy(ORIGIN), fetch: server.fetch });

  cut.add('installer');
  await expect(registry.install(urls('1.0.0'))).rejects.toMatchObject({ name: 'NetworkError', code: 'NETWORK' });
  expect(server.served).toEqual([]);

  // The installer loads now; the download's own code does not: nothing fetched, the version waits.
  cut.delete('installer');
  cut.add('downloader');
  await expect(registry.install(urls('1.0.0'))).rejects.toMatchObject({ name: 'NetworkError', code: 'NETWORK' });
  expect(server.served).toEqual([]);
  expect((await store.version('demo@1.0.0'))?.status).toBe('downloading');

  cut.delete('downloader');
  await registry.resume('demo@1.0.0');
  expect((await store.pointer('demo'))?.active).toBe('demo@1.0.0');
});
