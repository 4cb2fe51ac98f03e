/**
 * The manifest's POST share target (vite.config.ts), which is how a share sheet hands Lantern
 * images: both ends of one handoff. The service worker answers the share's POST
 * (`handleShareTarget`): images go into a Cache Storage cache under one share id, text and
 * links into the GET URL src/app/launch.ts already reads, and a 303 opens the app. The page then
 * takes that share's images out of the cache (`takeSharedFiles`) and leaves the cache empty.
 *
 * Workbox writes the matcher and handler into sw.js from their source (`toString()`), because
 * the CSP's Trusted Types requirement refuses `importScripts(string)` in the service worker
 * (vite.config.ts). So those two must be self-contained: no imports and no module-level names,
 * hence the literals in them; share-target.test.ts runs their serialised copies against the
 * constants below.
 */

/** Where the share sheet posts: the manifest's `share_target.action`. */
export const SHARE_ACTION = '/share-target';
/** Holds shared images between the service worker's redirect and the page that classifies them. */
export const SHARED_CACHE = 'lantern-shared';

/** Service worker: the share sheet's POST (workbox route matcher, method POST). */
export const matchShareTarget = ({ url, sameOrigin }: { url: URL; sameOrigin: boolean }): boolean =>
  sameOrigin && url.pathname === '/share-target';

/** Service worker: stores the shared images (or puts the text in the URL) and opens the app. */
export async function handleShareTarget({ request }: { request: Request }): Promise<Response> {
  const form = await request.formData();
  // An empty file field arrives as a nameless, empty file.
  const images = form.getAll('image').filter((value): value is File => typeof value !== 'string' && value.size > 0);
  const target = new URL('/', request.url);
  if (images.length > 0) {
    const id = crypto.randomUUID();
    const cache = await caches.open('lantern-shared');
    // The key carries the file's name: a header could not hold every name.
    for (const [index, image] of images.entries()) {
      const key = new URL(`/share-target/${id}/${index}/${encodeURIComponent(image.name)}`, request.url);
      await cache.put(key.href, new Response(image));
    }
    target.search = new URLSearchParams({ task: 'image-classification', shared: id }).toString();
  } else {
    for (const name of ['title', 'text', 'url']) {
      const value = form.get(name);
      // Cut to 100,000 characters: Chromium opens no URL over 2 MB (a Hindi character takes 9
      // bytes in one), and a classifier reads far less (512 tokens are ~2,000 characters).
      if (typeof value === 'string' && value.trim()) target.searchParams.set(name, value.slice(0, 100_000));
    }
  }
  // 303: the app opens with a GET, so reloading it does not post the share again.
  return Response.redirect(target.href, 303);
}

/** The parts of Cache Storage the page's end uses. */
export interface SharedStorage {
  open(name: string): Promise<{ keys(): Promise<readonly Request[]>; match(request: Request): Promise<Response | undefined> }>;
  delete(name: string): Promise<boolean>;
}

/**
 * Page: the images of share `id`, in the order they were shared. Shared inputs may be private,
 * so the whole cache goes afterwards, with anything an interrupted share left there.
 */
export async function takeSharedFiles(id: string, storage: SharedStorage): Promise<File[]> {
  const cache = await storage.open(SHARED_CACHE);
  const prefix = `${SHARE_ACTION}/${id}/`;
  const files: File[] = [];
  for (const key of await cache.keys()) {
    const path = new URL(key.url).pathname;
    const blob = path.startsWith(prefix) ? await (await cache.match(key))?.blob() : undefined;
    if (!blob) continue;
    const name = decodeURIComponent(path.slice(prefix.length).split('/')[1] ?? '');
    files.push(new File([blob], name, { type: blob.type }));
  }
  await storage.delete(SHARED_CACHE);
  return files;
}
