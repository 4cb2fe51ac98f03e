import { afterEach, describe, expect, it, vi } from 'vitest';
import { handleShareTarget, matchShareTarget, SHARE_ACTION, SHARED_CACHE, takeSharedFiles, type SharedStorage } from './share-target.ts';

/** What workbox writes into sw.js: the function's source alone, without this module around it. */
function serialised<F>(fn: F): F {
  return new Function(`return (${String(fn)});`)() as F;
}
const handle = serialised(handleShareTarget);
const match = serialised(matchShareTarget);

/** An in-memory Cache Storage, keyed by URL. */
class FakeCaches implements SharedStorage {
  readonly caches = new Map<string, Map<string, Response>>();
  async open(name: string) {
    const entries = this.caches.get(name) ?? new Map<string, Response>();
    this.caches.set(name, entries);
    return {
      put: async (key: string, response: Response) => void entries.set(key, response),
      keys: async () => [...entries.keys()].map((url) => new Request(url)),
      match: async (request: Request) => entries.get(request.url)?.clone(),
    };
  }
  async delete(name: string) {
    return this.caches.delete(name);
  }
}

const ORIGIN = 'https://lantern.test';
function share(fields: [string, string | File][]): { request: Request } {
  const form = new FormData();
  for (const [name, value] of fields) form.append(name, value);
  return { request: new Request(`${ORIGIN}${SHARE_ACTION}`, { method: 'POST', body: form }) };
}

let storage: FakeCaches;
function useFakeCaches(): FakeCaches {
  storage = new FakeCaches();
  vi.stubGlobal('caches', storage);
  return storage;
}
afterEach(() => {
  vi.unstubAllGlobals();
});

describe('share target (service worker end, as inlined into sw.js)', () => {
  it('matches only a same-origin request to the share action', () => {
    expect(match({ url: new URL(`${ORIGIN}${SHARE_ACTION}`), sameOrigin: true })).toBe(true);
    expect(match({ url: new URL(`${ORIGIN}${SHARE_ACTION}`), sameOrigin: false })).toBe(false);
    expect(match({ url: new URL(`${ORIGIN}/`), sameOrigin: true })).toBe(false);
  });

  it('keeps shared images in the shared cache and opens the app on them with a 303', async () => {
    useFakeCaches();
    const first = new File([new Uint8Array([1, 2, 3])], 'scan été.png', { type: 'image/png' });
    const second = new File([new Uint8Array([4])], 'scan été.png', { type: 'image/jpeg' });
    const response = await handle(share([['title', 'Scans'], ['image', first], ['image', second]]));
    expect(response.status).toBe(303);
    const location = new URL(response.headers.get('Location')!);
    expect(location.origin + location.pathname).toBe(`${ORIGIN}/`);
    expect(location.searchParams.get('task')).toBe('image-classification');
    const id = location.searchParams.get('shared')!;
    expect(id).toMatch(/^[\w-]{36}$/);
    expect(storage.caches.get(SHARED_CACHE)?.size).toBe(2);

    // The page's end gets both back, named and typed, and leaves nothing behind.
    const files = await takeSharedFiles(id, storage);
    expect(files.map((f) => [f.name, f.type, f.size])).toEqual([['scan été.png', 'image/png', 3], ['scan été.png', 'image/jpeg', 1]]);
    expect(new Uint8Array(await files[0]!.arrayBuffer())).toEqual(new Uint8Array([1, 2, 3]));
    expect(storage.caches.has(SHARED_CACHE)).toBe(false);
  });

  it('gives each share its own id; the page takes only its own', async () => {
    useFakeCaches();
    const image = new File(['x'], 'a.png', { type: 'image/png' });
    const ids = await Promise.all([1, 2].map(async () => new URL((await handle(share([['image', image]]))).headers.get('Location')!).searchParams.get('shared')));
    expect(new Set(ids).size).toBe(2);
    expect(await takeSharedFiles(ids[0]!, storage)).toHaveLength(1);
  });

  it('sends text and links to the GET URL the app reads, and stores nothing', async () => {
    useFakeCaches();
    const empty = new File([], '', { type: 'application/octet-stream' });
    const response = await handle(share([['title', 'Offer'], ['text', 'Win a cruise'], ['url', ' '], ['image', empty]]));
    expect(response.status).toBe(303);
    expect(response.headers.get('Location')).toBe(`${ORIGIN}/?title=Offer&text=Win+a+cruise`);
    expect(storage.caches.size).toBe(0);
  });
});

describe('share target (a long text)', () => {
  it('cuts a shared text to 100,000 characters: a 2 MB URL would open nothing', async () => {
    useFakeCaches();
    const hindi = 'क'.repeat(300_000);
    const location = (await handle(share([['text', hindi]]))).headers.get('Location')!;
    expect(new URL(location).searchParams.get('text')).toBe(hindi.slice(0, 100_000));
    expect(location.length).toBeLessThan(2 * 1024 * 1024);
  });
});

describe('share target (page end)', () => {
  it('clears the cache even when the share is gone (a reload after taking it)', async () => {
    const fake = new FakeCaches();
    expect(await takeSharedFiles('missing', fake)).toEqual([]);
    expect(fake.caches.has(SHARED_CACHE)).toBe(false);
  });
});
