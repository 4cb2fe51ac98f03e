import 'fake-indexeddb/auto';
import { beforeAll, expect, it, vi } from 'vitest';
import { OriginPolicy } from './net.ts';
import { ModelRegistry } from './registry.ts';
import { FakeServer, freshStore, keyAndTrust, makeRelease, ORIGIN, urls } from './test-helpers.ts';
import type { KeyFile, TrustStore } from './trust.ts';

let key: KeyFile;
let trust: TrustStore;
beforeAll(async () => ({ key, trust } = await keyAndTrust()));

// The install code is a chunk of its own; on a first visit cut by a lost connection its load fails.
let linkCut = true;
vi.mock('./installer.ts', async (importOriginal) => {
  if (linkCut) throw new TypeError('Failed to fetch dynamically imported module');
  return importOriginal();
});

it('an install whose code could not load fails; the next one loads it and installs', async () => {
  const store = await freshStore();
  const server = new FakeServer();
  server.add(await makeRelease(key, { version: '1.0.0', sequence: 1 }));
  const registry = new ModelRegistry({ store, trust, policy: new OriginPolicy(ORIGIN), fetch: server.fetch });
  await expect(registry.install(urls('1.0.0'))).rejects.toThrow();
  expect(server.served).toEqual([]);
  linkCut = false;
  await registry.install(urls('1.0.0'));
  expect((await store.pointer('demo'))?.active).toBe('demo@1.0.0');
});
