import 'fake-indexeddb/auto';
import { describe, expect, it, vi } from 'vitest';
import { NetworkError, SignatureError, ValidationError } from '../errors.ts';
import { openRegistry } from './bootstrap.ts';
import { BUILTIN_CATALOG } from './config.ts';
import { ModelStore } from './model-store.ts';
import { FakeServer, makeRelease, ORIGIN, urls } from './test-helpers.ts';
import { generateKey, sign, trustEntryFor, type KeyFile } from './trust.ts';

const json = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
let counter = 0;

/** A trust-store.json trusting each of `keys` for `demo`. */
const trusting = (...keys: KeyFile[]) => json({ keys: keys.map((key) => trustEntryFor(key, ['demo'])) });

/** The app's deployment: its registry configuration, and a trust store trusting `keys` for `demo`. */
function deployment(...keys: KeyFile[]): FakeServer {
  const server = new FakeServer();
  server.put('registry-config.json', json({ catalogUrl: 'models/catalog.json', allowedOrigins: [] }));
  server.put('trust-store.json', trusting(...keys));
  return server;
}

/**
 * A device that installed demo@2.0.0, signed by a key the deployment trusts for now ('rogue');
 * the next starts open the same database.
 */
async function installedFromRogueKey() {
  const [good, rogue] = await Promise.all([generateKey('good'), generateKey('rogue')]);
  const server = deployment(good, rogue);
  server.add(await makeRelease(rogue, { version: '2.0.0', sequence: 2 }));
  const dbName = `bootstrap-${counter++}`;
  const app = `${ORIGIN}/`;
  const first = await openRegistry(app, { fetch: server.fetch, dbName });
  await first.registry.install(urls('2.0.0'));
  first.registry.store.close();
  return { server, good, dbName, app };
}

/** A link that holds every request to `server` until `answer()`. */
function heldLink(server: FakeServer) {
  let answer!: () => void;
  const held = new Promise<void>((resolve) => (answer = resolve));
  const silent: typeof fetch = async (input, init) => {
    await held;
    return server.fetch(input, init);
  };
  return { silent, answer };
}

describe('deployment files (trust store, registry config)', () => {
  it('are fetched network first; the last good copy is used only when the network fails', async () => {
    const { server, good, dbName, app } = await installedFromRogueKey();

    // The deployment revokes the rogue key: the next start sees it at once (no app update needed).
    server.put('trust-store.json', trusting(good));
    const second = await openRegistry(app, { fetch: server.fetch, dbName });
    expect((await second.registry.store.version('demo@2.0.0'))?.status).toBe('revoked');
    second.registry.store.close();

    // Offline: the last good copy (with the revocation) is used, not an older one.
    const offline: typeof fetch = async () => { throw new TypeError('Failed to fetch'); };
    const third = await openRegistry(app, { fetch: offline, dbName });
    expect(third.registry.notices).toEqual([]);
    expect((await third.registry.store.version('demo@2.0.0'))?.status).toBe('revoked');
    expect((await third.checked)[0]).toBeInstanceOf(NetworkError);
    third.registry.store.close();
  });

  it('on a link that does not answer, a start goes on with the saved files and applies a late revocation when it comes', async () => {
    const { server, good, dbName, app } = await installedFromRogueKey();

    // The deployment revokes the rogue key, but the link holds every request until `answer`.
    server.put('trust-store.json', trusting(good));
    const { silent, answer } = heldLink(server);
    const second = await openRegistry(app, { fetch: silent, dbName, networkWaitMs: 0 });
    // Opened without the network: the installed version still answers meanwhile.
    expect((await second.registry.store.version('demo@2.0.0'))?.status).toBe('ready');
    answer();
    await second.checked;
    expect((await second.registry.store.version('demo@2.0.0'))?.status).toBe('revoked');
    expect(second.registry.notices).toEqual([expect.objectContaining({ kind: 'revoked', id: 'demo', version: '2.0.0' })]);
    second.registry.store.close();
  });

  it('a trust store that arrives late and broken is reported, never applied or saved; the installed version answers', async () => {
    const { server, dbName, app } = await installedFromRogueKey();
    // An attacker on the link holds the trust store, then sends garbage in its place.
    server.put('trust-store.json', new TextEncoder().encode('{"keys": "none of yours'));
    const { silent, answer } = heldLink(server);
    const second = await openRegistry(app, { fetch: silent, dbName, networkWaitMs: 0 });
    answer();
    expect((await second.checked)[0]).toBeInstanceOf(ValidationError);
    expect((await second.registry.readActive('demo')).manifest.version).toBe('2.0.0');
    second.registry.store.close();

    // The saved copy was not overwritten: an offline start still opens with it.
    const offline: typeof fetch = async () => { throw new TypeError('Failed to fetch'); };
    const third = await openRegistry(app, { fetch: offline, dbName });
    expect((await third.registry.readActive('demo')).manifest.version).toBe('2.0.0');
    third.registry.store.close();
  });

  it('a web page served in place of the trust store (a captive portal, an app-page fallback) is as offline: the saved copy stands, the installed version answers', async () => {
    const { server, dbName, app } = await installedFromRogueKey();
    server.misbehave = (path) => (path === 'trust-store.json' ? new Response('<!doctype html><title>Log in</title>', { headers: { 'Content-Type': 'text/html' } }) : undefined);
    const second = await openRegistry(app, { fetch: server.fetch, dbName, installBuiltins: false });
    expect(await second.checked).toEqual([]);
    expect((await second.registry.readActive('demo')).manifest.version).toBe('2.0.0');
    // An update check meets the same page: nothing applied, nothing reported, as offline.
    await second.refreshTrust();
    expect((await second.registry.readActive('demo')).manifest.version).toBe('2.0.0');
    second.registry.store.close();
  });

  it('one served broken on time does not stop the start: the saved copy stands, the refusal is reported, the installed version answers', async () => {
    const { server, dbName, app } = await installedFromRogueKey();
    // A careless deployment: a trust store that is not JSON, a configuration missing its catalog.
    server.put('trust-store.json', new TextEncoder().encode('{"keys": [ oops'));
    server.put('registry-config.json', json({ allowedOrigins: [] }));
    const second = await openRegistry(app, { fetch: server.fetch, dbName, installBuiltins: false });
    const refused = await second.checked;
    expect(refused).toHaveLength(2);
    expect(refused.every((e) => e instanceof ValidationError)).toBe(true);
    expect(refused.map((e) => e.message).join(' ')).toMatch(/registry-config\.json.*trust-store\.json is not valid JSON/is);
    expect(second.config.catalogUrl).toBe('models/catalog.json');
    expect((await second.registry.readActive('demo')).manifest.version).toBe('2.0.0');
    // An update check meets the same file: it says why, and changes nothing.
    await expect(second.refreshTrust()).rejects.toThrow(ValidationError);
    expect((await second.registry.store.version('demo@2.0.0'))?.status).toBe('ready');
    second.registry.store.close();

    // Neither broken file replaced the saved copy: an offline start opens with it.
    const offline: typeof fetch = async () => { throw new TypeError('Failed to fetch'); };
    const third = await openRegistry(app, { fetch: offline, dbName, installBuiltins: false });
    expect(await third.checked).toEqual([]);
    expect((await third.registry.readActive('demo')).manifest.version).toBe('2.0.0');
    third.registry.store.close();
  });

  it('a check right after the start uses the trust store the start fetched; a later or explicit one fetches it again', async () => {
    const key = await generateKey('publisher');
    const server = deployment(key);
    let trustRequests = 0;
    const counting: typeof fetch = (input, init) => {
      if (String(input instanceof Request ? input.url : input).endsWith('/trust-store.json')) trustRequests++;
      return server.fetch(input, init);
    };
    const opened = await openRegistry(`${ORIGIN}/`, { fetch: counting, dbName: `bootstrap-${counter++}`, installBuiltins: false });
    expect(trustRequests).toBe(1);
    await opened.refreshTrust({ unlessFetchedWithinMs: 60_000 });
    expect(trustRequests).toBe(1);
    await opened.refreshTrust({ unlessFetchedWithinMs: 0 });
    await opened.refreshTrust();
    expect(trustRequests).toBe(3);
    opened.registry.store.close();
  });

  it('a trust store another window accepted is adopted here at once: a key revoked there installs nothing here, the active version stays', async () => {
    const [good, rogue] = await Promise.all([generateKey('good'), generateKey('rogue')]);
    const server = deployment(good, rogue);
    server.add(await makeRelease(good, { version: '1.0.0', sequence: 1 }));
    server.add(await makeRelease(rogue, { version: '2.0.0', sequence: 2 }));
    const options = { fetch: server.fetch, dbName: `bootstrap-${counter++}`, installBuiltins: false };
    const here = await openRegistry(`${ORIGIN}/`, options);
    await here.registry.install(urls('1.0.0'));
    let told = 0;
    here.registry.subscribe(() => told++);
    // The installed app and a browser tab: two windows, one store. The other one's start applies
    // the trust store this one has (told once, nothing to adopt).
    const there = await openRegistry(`${ORIGIN}/`, options);

    server.put('trust-store.json', trusting(good));
    await there.refreshTrust();
    // Told of the other window's new trust store, then re-checked against it here.
    await vi.waitFor(() => expect(told).toBe(3));
    await expect(here.registry.install(urls('2.0.0'))).rejects.toThrow(SignatureError);
    expect((await here.registry.store.pointer('demo'))?.active).toBe('demo@1.0.0');
    here.registry.store.close();
    there.registry.store.close();
  });

  it('a version revoked in another window is revoked here too, and this window\'s user is told which version answers now', async () => {
    const [good, rogue] = await Promise.all([generateKey('good'), generateKey('rogue')]);
    const server = deployment(good, rogue);
    server.add(await makeRelease(good, { version: '1.0.0', sequence: 1 }));
    server.add(await makeRelease(rogue, { version: '2.0.0', sequence: 2 }));
    const options = { fetch: server.fetch, dbName: `bootstrap-${counter++}`, installBuiltins: false };
    const here = await openRegistry(`${ORIGIN}/`, options);
    await here.registry.install(urls('1.0.0'));
    await here.registry.install(urls('2.0.0'));
    const there = await openRegistry(`${ORIGIN}/`, options);

    server.put('trust-store.json', trusting(good));
    await there.refreshTrust();
    const notice = expect.objectContaining({ kind: 'revoked', id: 'demo', version: '2.0.0', fallbackVersion: '1.0.0' });
    expect(there.registry.notices).toEqual([notice]);
    await vi.waitFor(() => expect(here.registry.notices).toEqual([notice]));
    expect((await here.registry.readActive('demo')).manifest.version).toBe('1.0.0');
    here.registry.store.close();
    there.registry.store.close();
  });

  it('a threshold raised in another window, the keys unchanged, is adopted here too: what one key signed is disabled', async () => {
    const [first, second] = await Promise.all([generateKey('first'), generateKey('second')]);
    const server = deployment(first, second);
    const v1 = await makeRelease(first, { version: '1.0.0', sequence: 1 });
    server.add({ ...v1, signatures: { signatures: [...v1.signatures.signatures, await sign(v1.bytes, second)] } });
    server.add(await makeRelease(first, { version: '2.0.0', sequence: 2 }));
    server.add(await makeRelease(first, { version: '3.0.0', sequence: 3 }));
    const options = { fetch: server.fetch, dbName: `bootstrap-${counter++}`, installBuiltins: false };
    const here = await openRegistry(`${ORIGIN}/`, options);
    await here.registry.install(urls('1.0.0'));
    await here.registry.install(urls('2.0.0'));
    let told = 0;
    here.registry.subscribe(() => told++);
    const there = await openRegistry(`${ORIGIN}/`, options);

    server.put('trust-store.json', json({ keys: [trustEntryFor(first, ['demo']), trustEntryFor(second, ['demo'])], thresholds: [{ scope: ['demo'], signatures: 2 }] }));
    await there.refreshTrust();
    // Told of the other window's new trust store, then re-checked against it here.
    await vi.waitFor(() => expect(told).toBe(3));
    expect(here.registry.notices).toEqual([expect.objectContaining({ kind: 'revoked', id: 'demo', version: '2.0.0', fallbackVersion: '1.0.0' })]);
    await expect(here.registry.install(urls('3.0.0'))).rejects.toThrow(SignatureError);
    expect((await here.registry.readActive('demo')).manifest.version).toBe('1.0.0');
    here.registry.store.close();
    there.registry.store.close();
  });

  it('told of a trust store it cannot read (saved by a newer build in another window), this window keeps the one in use: its active version answers, nothing is revoked', async () => {
    const [good, rogue] = await Promise.all([generateKey('good'), generateKey('rogue')]);
    const server = deployment(good, rogue);
    server.add(await makeRelease(good, { version: '1.0.0', sequence: 1 }));
    server.add(await makeRelease(rogue, { version: '2.0.0', sequence: 2 }));
    const dbName = `bootstrap-${counter++}`;
    const here = await openRegistry(`${ORIGIN}/`, { fetch: server.fetch, dbName, installBuiltins: false });
    await here.registry.install(urls('1.0.0'));
    let told = 0;
    here.registry.subscribe(() => told++);

    // The newer build saved a trust store in a format this one does not read, and said so.
    const newerBuild = await ModelStore.open(dbName);
    await newerBuild.acceptDeploymentFile('trust-store.json', { keys: 'a format this build does not read' });
    const channel = new BroadcastChannel(`lantern-store:${dbName}`);
    channel.postMessage({ trust: true, notices: [] });
    await vi.waitFor(() => expect(told).toBe(1));

    expect(here.registry.notices).toEqual([]);
    expect((await here.registry.readActive('demo')).manifest.version).toBe('1.0.0');
    // Until its next check fetches a trust store it reads, the keys it had still vouch.
    await here.registry.install(urls('2.0.0'));
    expect((await here.registry.store.pointer('demo'))?.active).toBe('demo@2.0.0');
    channel.close();
    newerBuild.close();
    here.registry.store.close();
  });

  it('a saved copy this app no longer parses does not stop an offline start: installed versions answer, revoked ones stay revoked, no key is trusted for anything new', async () => {
    // The good key's 1.0.0, then the rogue key's 2.0.0; then the deployment revoked the rogue key.
    const [good, rogue] = await Promise.all([generateKey('good'), generateKey('rogue')]);
    const server = deployment(good, rogue);
    server.add(await makeRelease(good, { version: '1.0.0', sequence: 1 }));
    server.add(await makeRelease(rogue, { version: '2.0.0', sequence: 2 }));
    server.add(await makeRelease(good, { version: '3.0.0', sequence: 3 }));
    const dbName = `bootstrap-${counter++}`;
    const app = `${ORIGIN}/`;
    const first = await openRegistry(app, { fetch: server.fetch, dbName, installBuiltins: false });
    await first.registry.install(urls('1.0.0'));
    await first.registry.install(urls('2.0.0'));
    server.put('trust-store.json', trusting(good));
    await first.refreshTrust();
    first.registry.store.close();
    // An app update made both schemas stricter: the saved copies no longer parse.
    const store = await ModelStore.open(dbName);
    await store.acceptDeploymentFile('trust-store.json', { keys: 'a format this app no longer reads' });
    await store.acceptDeploymentFile('registry-config.json', { catalogUrl: 42 });
    store.close();

    // The deployment files cannot be fetched (releases still can).
    server.misbehave = (path) => (path.endsWith('.json') && !path.includes('/') ? 'drop' : undefined);
    const third = await openRegistry(app, { fetch: server.fetch, dbName, installBuiltins: false });
    const refused = await third.checked;
    expect(refused.map((e) => [e.constructor, /saved on this device can no longer be read/.test(e.message)])).toEqual([[ValidationError, true], [ValidationError, true]]);
    expect(third.config).toEqual({ catalogUrl: BUILTIN_CATALOG, allowedOrigins: [] });
    expect((await third.registry.readActive('demo')).manifest.version).toBe('1.0.0');
    expect((await third.registry.store.version('demo@2.0.0'))?.status).toBe('revoked');
    // Failing closed: without a trust store it can read, the device installs nothing new.
    await expect(third.registry.install(urls('3.0.0'))).rejects.toThrow(SignatureError);
    await expect(third.refreshTrust()).rejects.toThrow(/can no longer be read/);
    expect((await third.registry.readActive('demo')).manifest.version).toBe('1.0.0');

    // The deployment's trust store reaches the device again: it is applied and saved.
    server.misbehave = undefined;
    await third.refreshTrust();
    await third.registry.install(urls('3.0.0'));
    expect((await third.registry.readActive('demo')).manifest.version).toBe('3.0.0');
    third.registry.store.close();
  });

  it('fail clearly on a first start served a broken file', async () => {
    const server = deployment();
    server.put('trust-store.json', json({ keys: 'none' }));
    await expect(openRegistry(`${ORIGIN}/`, { fetch: server.fetch, dbName: `bootstrap-${counter++}` })).rejects.toThrow(/The trust store is not valid at "keys"/);
  });

  it('fail clearly on a first start without network', async () => {
    const offline: typeof fetch = async () => { throw new TypeError('Failed to fetch'); };
    await expect(openRegistry(`${ORIGIN}/`, { fetch: offline, dbName: `bootstrap-${counter++}`, firstStartRetriesMs: [1, 1] })).rejects.toThrow(NetworkError);
    // A file the link never delivers is asked for three times in all, then the start fails.
    const server = deployment();
    let asked = 0;
    server.misbehave = (path) => (path === 'trust-store.json' && ++asked ? 'drop' : undefined);
    await expect(openRegistry(`${ORIGIN}/`, { fetch: server.fetch, dbName: `bootstrap-${counter++}`, firstStartRetriesMs: [1, 1] })).rejects.toThrow(NetworkError);
    expect(asked).toBe(3);
  });

  it('on a first start, ask again for a file whose request the link dropped; a broken file is not asked again', async () => {
    const server = deployment();
    const asked = new Map<string, number>();
    server.misbehave = (path) => {
      asked.set(path, (asked.get(path) ?? 0) + 1);
      return asked.get(path) === 1 ? 'drop' : undefined;
    };
    const opened = await openRegistry(`${ORIGIN}/`, { fetch: server.fetch, dbName: `bootstrap-${counter++}`, installBuiltins: false, firstStartRetriesMs: [1, 1] });
    expect(opened.config.catalogUrl).toBe('models/catalog.json');
    expect(asked.get('trust-store.json')).toBe(2);
    opened.registry.store.close();

    server.misbehave = undefined;
    server.put('trust-store.json', json({ keys: 'none' }));
    const fetched: string[] = [];
    const counting: typeof fetch = (input, init) => {
      fetched.push(String(input));
      return server.fetch(input, init);
    };
    await expect(openRegistry(`${ORIGIN}/`, { fetch: counting, dbName: `bootstrap-${counter++}`, firstStartRetriesMs: [1, 1] })).rejects.toThrow(ValidationError);
    expect(fetched.filter((url) => url.endsWith('/trust-store.json'))).toHaveLength(1);
    // Nor is a file the server says it does not have (404): only what the downloader would retry is retried.
    server.misbehave = (path) => (path === 'trust-store.json' ? new Response('not found', { status: 404 }) : undefined);
    fetched.length = 0;
    await expect(openRegistry(`${ORIGIN}/`, { fetch: counting, dbName: `bootstrap-${counter++}`, firstStartRetriesMs: [1, 1] })).rejects.toThrow(NetworkError);
    expect(fetched.filter((url) => url.endsWith('/trust-store.json'))).toHaveLength(1);
  });

  it('on a first start, a file answered by a web page (a server that sends the app\'s page for a missing file) is said to be missing, not broken', async () => {
    const server = deployment();
    server.misbehave = (path) => (path === 'trust-store.json' ? new Response('<!doctype html><title>App</title>', { status: 200, headers: { 'Content-Type': 'text/html; charset=utf-8' } }) : undefined);
    const start = openRegistry(`${ORIGIN}/`, { fetch: server.fetch, dbName: `bootstrap-${counter++}`, firstStartRetriesMs: [1, 1] });
    await expect(start).rejects.toThrow(NetworkError);
    await expect(start).rejects.toThrow(`The deployment file trust-store.json is not at ${ORIGIN}/trust-store.json: the server sent a web page instead. This device has no saved copy of it to start from.`);
  });
});
