import 'fake-indexeddb/auto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { CancelledError, IntegrityError, LanternError, NetworkError, ValidationError } from '../errors.ts';
import { DOCUMENT_LIMITS, fetchDocument, guardedFetch, OriginPolicy, type NetContext } from './net.ts';
import { ModelRegistry } from './registry.ts';
import { StoreModelSource } from './store-model-source.ts';
import { FakeServer, freshStore, keyAndTrust, makeRelease, ORIGIN, urls } from './test-helpers.ts';
import type { KeyFile, TrustStore } from './trust.ts';

/** A body that never ends, counting how many chunks were pulled from it. */
function endless(chunk = 64 * 1024): { stream: ReadableStream<Uint8Array>; pulled: () => number } {
  let pulls = 0;
  const bytes = new Uint8Array(chunk);
  return {
    stream: new ReadableStream({ pull: (controller) => { pulls++; controller.enqueue(bytes); } }, { highWaterMark: 0 }),
    pulled: () => pulls,
  };
}

/** A body that sends `first` and then nothing, ever (a server that stopped sending). */
function stalling(first: Uint8Array): ReadableStream<Uint8Array> {
  let sent = false;
  return new ReadableStream({
    pull: (controller) => {
      if (sent) return new Promise<void>(() => undefined);
      sent = true;
      controller.enqueue(first);
    },
  }, { highWaterMark: 0 });
}

/** A body of `pieces` pieces of `size` bytes, one every `everyMs` (on the fake clock in these tests). */
function paced(size: number, everyMs: number, pieces: number): ReadableStream<Uint8Array> {
  let sent = 0;
  let cancelled = false;
  return new ReadableStream<Uint8Array>({
    pull: (controller) => new Promise<void>((resolve) => setTimeout(() => {
      if (cancelled) return resolve();
      if (sent++ < pieces) controller.enqueue(new Uint8Array(size));
      else controller.close();
      resolve();
    }, everyMs)),
    cancel: () => { cancelled = true; },
  }, { highWaterMark: 0 });
}

const STALL_MS = 10_000;

describe('guardedFetch against real servers', () => {
  let allowed: Server;
  let other: Server;
  const origin = (s: Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  beforeAll(async () => {
    other = createServer((_, res) => res.end('{"stolen":true}'));
    allowed = createServer((req, res) => {
      if (req.url === '/away') res.writeHead(302, { Location: `${origin(other)}/x.json` }).end();
      else if (req.url === '/moved') res.writeHead(301, { Location: '/doc.json' }).end();
      else res.end('{"ok":true}');
    });
    await Promise.all([allowed, other].map((s) => new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve))));
  });
  afterAll(() => Promise.all([allowed, other].map((s) => new Promise((resolve) => s.close(resolve)))));

  const context = (): NetContext => ({ policy: new OriginPolicy(origin(allowed)), fetch });

  it('refuses a redirect that leaves the allowed origins, and follows one that stays', async () => {
    const error = await fetchDocument(context(), { url: `${origin(allowed)}/away`, what: 'the model catalog', limit: 1024 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).message).toMatch(/redirected to an address that is not an allowed model source/);
    expect((error as NetworkError).details.origin).toBe(origin(other));
    const bytes = await fetchDocument(context(), { url: `${origin(allowed)}/moved`, what: 'the model catalog', limit: 1024 });
    expect(new TextDecoder().decode(bytes)).toBe('{"ok":true}');
  });
});

describe('guardedFetch limits and timeouts', () => {
  afterEach(() => vi.useRealTimers());
  const context = (fetcher: typeof fetch): NetContext => ({ policy: new OriginPolicy(ORIGIN), fetch: fetcher, stallMs: STALL_MS });
  const url = `${ORIGIN}/m.json`;

  it('refuses a document whose declared length is over the limit without reading it', async () => {
    const body = endless();
    const response = new Response(body.stream, { headers: { 'Content-Length': String(32 * 1024 * 1024) } });
    await expect(fetchDocument(context(async () => response), { url, what: 'the release manifest', limit: DOCUMENT_LIMITS.manifest })).rejects.toThrow(ValidationError);
    expect(body.pulled()).toBe(0);
  });

  it('stops an endless body at the limit instead of buffering it', async () => {
    const body = endless();
    const error = await fetchDocument(context(async () => new Response(body.stream)), { url, what: 'the release manifest', limit: DOCUMENT_LIMITS.manifest }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).message).toMatch(/larger than the 4194304 bytes allowed/);
    // 4 MiB / 64 KiB = 64 chunks fit; the 65th crosses the limit and reading stops there.
    expect(body.pulled()).toBe(65);
  });

  it('fails a body that stops arriving with a resumable NetworkError once the stall time passes', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const response = await guardedFetch(context(async () => new Response(stalling(new Uint8Array(100)))), { url, what: 'onnx/model.onnx', where: { file: 'onnx/model.onnx', chunk: 3 } });
    const reading = response.read(1000, () => new IntegrityError('too long')).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(STALL_MS - 1);
    let settled = false;
    void reading.then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const error = await reading;
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).details).toMatchObject({ stalled: true, retryable: true, file: 'onnx/model.onnx', chunk: 3 });
  });

  it('fails a body that drips too slowly to finish (slow retrieval), and lets a slow but steady one finish', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    // 100 bytes a second: 1,000 bytes per stall time, far below MIN_BYTES_PER_STALL. Old rule: every byte re-armed the timer.
    const drip = await guardedFetch(context(async () => new Response(paced(100, 1000, 1_000_000))), { url, what: 'onnx/model.onnx', where: { file: 'onnx/model.onnx', chunk: 0 } });
    const dripping = drip.read(1_000_000, () => new IntegrityError('too long')).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(STALL_MS);
    const error = await dripping;
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).message).toMatch(/^Only \d+ bytes arrived in 10 s while fetching onnx\/model\.onnx; try again to resume\.$/);
    expect((error as NetworkError).details).toMatchObject({ stalled: true, retryable: true, chunk: 0 });
    // 4 KiB a second (a poor 2G link): 40 KiB per stall time, so 200 KiB arrive whole in 50 s.
    const steady = await guardedFetch(context(async () => new Response(paced(4096, 1000, 50))), { url, what: 'onnx/model.onnx' });
    const reading = steady.read(1_000_000, () => new IntegrityError('too long'));
    await vi.advanceTimersByTimeAsync(51_000);
    expect((await reading).length).toBe(50 * 4096);
  });

  it('fails a server that never answers, aborting the request it sent', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let sent: AbortSignal | undefined;
    const silent: typeof fetch = (_input, init) => {
      sent = init?.signal ?? undefined;
      return new Promise<Response>(() => undefined);
    };
    const request = guardedFetch(context(silent), { url, what: 'the release manifest' }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(STALL_MS);
    expect(await request).toMatchObject({ code: 'NETWORK', details: { stalled: true, retryable: true } });
    expect(sent?.aborted).toBe(true);
  });

  it('honours the caller\'s AbortSignal while a body is arriving', async () => {
    const controller = new AbortController();
    const response = await guardedFetch(context(async () => new Response(stalling(new Uint8Array(10)))), { url, what: 'x', signal: controller.signal });
    const reading = response.read(1000, () => new IntegrityError('too long')).catch((e: unknown) => e);
    controller.abort();
    expect(await reading).toBeInstanceOf(CancelledError);
  });

  it('refuses addresses outside the policy before sending anything', async () => {
    let called = false;
    const spy: typeof fetch = async () => { called = true; return new Response(''); };
    await expect(guardedFetch(context(spy), { url: 'https://evil.example/m.json', what: 'x' })).rejects.toThrow(NetworkError);
    expect(called).toBe(false);
  });
});

describe('OriginPolicy', () => {
  it('accepts https origins and plain http only on loopback', () => {
    expect(() => new OriginPolicy(ORIGIN, ['https://cdn.example', 'http://127.0.0.1:8787', 'http://localhost:8787', 'http://[::1]:8787'])).not.toThrow();
    for (const insecure of ['http://models.example', 'http://192.168.1.10:8787', 'ftp://models.example']) {
      expect(() => new OriginPolicy(ORIGIN, [insecure])).toThrow(ValidationError);
    }
  });
});

/**
 * Attacks on a device that already runs version 1.0.0: each must fail with its typed error and
 * leave 1.0.0 answering.
 */
describe('network attacks leave the active version answering', () => {
  let key: KeyFile;
  let trust: TrustStore;
  beforeAll(async () => ({ key, trust } = await keyAndTrust()));
  afterEach(() => vi.useRealTimers());

  async function deviceWithActive() {
    const store = await freshStore();
    const server = new FakeServer();
    for (const [version, sequence] of [['1.0.0', 1], ['2.0.0', 2]] as const) server.add(await makeRelease(key, { version, sequence }));
    const registry = new ModelRegistry({ store, trust, policy: new OriginPolicy(ORIGIN), fetch: server.fetch, backoffMs: 1, retries: 1, stallMs: STALL_MS });
    await registry.install(urls('1.0.0'));
    const update = () => registry.install(urls('2.0.0'));
    const answering = async () => (await new StoreModelSource(Promise.resolve(registry)).files('demo')).key;
    return { registry, server, update, answering };
  }

  async function expectTyped(promise: Promise<unknown>, type: typeof LanternError): Promise<LanternError> {
    const error = await promise.then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(type);
    return error as LanternError;
  }

  it('a redirect of the manifest to another origin', async () => {
    const { server, update, answering } = await deviceWithActive();
    server.misbehave = (path) => {
      if (path !== 'demo/2.0.0/manifest.json') return undefined;
      const response = new Response('{}');
      // What fetch reports after following a 302 to another host.
      Object.defineProperty(response, 'url', { value: 'https://evil.example/manifest.json' });
      return response;
    };
    await expectTyped(update(), NetworkError);
    expect(await answering()).toBe('demo@1.0.0');
  });

  it('a web page for the manifest\'s signature (a captive portal, or a host that answers a missing file with the app\'s page)', async () => {
    const { server, update, answering } = await deviceWithActive();
    server.misbehave = (path) => (path === 'demo/2.0.0/manifest.sig.json' ? new Response('<!doctype html><title>Log in</title>', { headers: { 'Content-Type': 'text/html' } }) : undefined);
    const error = await expectTyped(update(), NetworkError);
    expect(error.message).toMatch(/manifest\.sig\.json: the server sent a web page instead/);
    expect(await answering()).toBe('demo@1.0.0');
  });

  it('a 32 MiB "manifest"', async () => {
    const { server, update, answering } = await deviceWithActive();
    const body = endless();
    server.misbehave = (path) => (path === 'demo/2.0.0/manifest.json' ? new Response(body.stream) : undefined);
    await expectTyped(update(), ValidationError);
    expect(body.pulled() * 64 * 1024).toBeLessThanOrEqual(DOCUMENT_LIMITS.manifest + 64 * 1024);
    expect(await answering()).toBe('demo@1.0.0');
  });

  it('a 32 MiB body for a 4 KiB chunk', async () => {
    const { server, update, answering } = await deviceWithActive();
    const body = endless(1024);
    server.misbehave = (path, range) => (path === 'demo/2.0.0/onnx/model.onnx' && range?.[0] === 4096
      ? new Response(body.stream, { status: 206, headers: { 'Content-Range': 'bytes 4096-8191/10000' } })
      : undefined);
    const error = await expectTyped(update(), IntegrityError);
    expect(error.message).toMatch(/more of onnx\/model.onnx than the signed manifest says/);
    expect(body.pulled()).toBe(5);
    expect(await answering()).toBe('demo@1.0.0');
  });

  it('an endless body (or a decompression bomb) for a file of one chunk, asked for whole', async () => {
    const { server, update, answering } = await deviceWithActive();
    const body = endless(1024);
    server.misbehave = (path, range) => (path === 'demo/2.0.0/config.json' && range === undefined ? new Response(body.stream, { status: 200 }) : undefined);
    const error = await expectTyped(update(), IntegrityError);
    expect(error.message).toMatch(/more of config.json than the signed manifest says/);
    expect(body.pulled()).toBeLessThanOrEqual(2);
    expect(await answering()).toBe('demo@1.0.0');
  });

  it('a chunk that stops arriving fails resumably, and a resume then completes it', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { registry, server, update, answering } = await deviceWithActive();
    server.misbehave = (path, range) => (path === 'demo/2.0.0/onnx/model.onnx' && range?.[0] === 4096
      ? new Response(stalling(new Uint8Array(10)), { status: 206, headers: { 'Content-Range': 'bytes 4096-8191/10000' } })
      : undefined);
    let settled = false;
    const installing = expectTyped(update(), NetworkError).finally(() => (settled = true));
    // Two attempts (retries: 1), each silent for the stall time: the fake clock moves until it fails.
    while (!settled) await vi.advanceTimersByTimeAsync(1000);
    const error = await installing;
    expect(error.details.retryable).toBe(true);
    expect(error.message).toMatch(/try again to resume/);
    expect(await answering()).toBe('demo@1.0.0');
    server.misbehave = undefined;
    await registry.resume('demo@2.0.0');
    expect(await answering()).toBe('demo@2.0.0');
  });
  it('a chunk dripped a byte at a time (slow retrieval) fails resumably instead of holding the install for days', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { registry, server, update, answering } = await deviceWithActive();
    server.misbehave = (path, range) => (path === 'demo/2.0.0/onnx/model.onnx' && range?.[0] === 4096
      ? new Response(paced(1, STALL_MS / 2, 4096), { status: 206, headers: { 'Content-Range': 'bytes 4096-8191/10000' } })
      : undefined);
    let settled = false;
    const installing = expectTyped(update(), NetworkError).finally(() => (settled = true));
    // Dripped at this pace the 4 KiB chunk would take ~5.7 hours per attempt; each one now ends at the stall time.
    while (!settled) await vi.advanceTimersByTimeAsync(1000);
    const error = await installing;
    expect(error.message).toBe('onnx/model.onnx could not be downloaded after 2 attempts; try again to resume.');
    expect((error.cause as Error).message).toMatch(/^Only 1 bytes arrived in 10 s while fetching onnx\/model\.onnx/);
    expect(error.details).toMatchObject({ stalled: true, retryable: true, bytes: 1 });
    expect(await answering()).toBe('demo@1.0.0');
    expect(registry.activeTransfers()).toEqual([]);
  });
});
