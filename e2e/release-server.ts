import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { readFile } from 'node:fs/promises';
import { join, normalize } from 'node:path';

/**
 * A release server for e2e tests that misbehaves on request: it serves a packed catalog
 * folder with the CORS/CORP headers a cross-origin-isolated page needs, honours Range, and
 * can flip a bit, truncate, answer with an HTML page, swap files, cut connections mid-body or
 * stall. It logs every response so tests can prove what was (not) fetched again.
 */
export interface Misbehaviour {
  /** Flip one bit of this file at this byte offset. */
  flipBit?: { path: string; offset: number };
  /** Serve only the first half of this file. */
  truncate?: string;
  /** Answer requests for this file with a 200 HTML page. */
  html?: string;
  /** Serve another file's bytes for this path (signature swaps, replays). */
  replace?: Map<string, string>;
  /** Answer 404 for these paths. */
  missing?: Set<string>;
  /** For a Range starting at one of these offsets of `path`: send half, then drop the connection (once each). */
  cut?: { path: string; offsets: Set<number> };
  /** After this many complete ranged responses, stop answering ranged requests at all. */
  stallAfter?: number;
  /** Delay before each ranged response, so a progress bar is visible. */
  delayMs?: number;
}

export interface LogEntry {
  path: string;
  start?: number;
  complete: boolean;
}

const CORS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Headers': 'Range',
  'Access-Control-Expose-Headers': 'Content-Range, Content-Length',
  'Cross-Origin-Resource-Policy': 'cross-origin',
  'Cache-Control': 'no-store',
};

export class ReleaseServer {
  behaviour: Misbehaviour = {};
  log: LogEntry[] = [];
  private readonly hanging = new Set<ServerResponse>();
  private readonly server = createServer((req, res) => void this.handle(req, res));

  constructor(private readonly root: string) {}

  listen(port: number): Promise<void> {
    return new Promise((resolve) => this.server.listen(port, '127.0.0.1', resolve));
  }

  close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  reset(): void {
    this.behaviour = {};
    this.log = [];
    for (const res of this.hanging) res.destroy();
    this.hanging.clear();
  }

  /** Ranged responses that were sent completely, as "path@start". */
  completedRanges(): string[] {
    return this.log.filter((e) => e.complete && e.start !== undefined).map((e) => `${e.path}@${e.start}`);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method === 'OPTIONS') {
      res.writeHead(204, CORS);
      return void res.end();
    }
    const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)).replace(/^\/+/, '');
    const b = this.behaviour;
    if (b.missing?.has(path)) {
      res.writeHead(404, CORS);
      return void res.end();
    }
    if (b.html === path) {
      res.writeHead(200, { ...CORS, 'Content-Type': 'text/html' });
      return void res.end('<!doctype html><title>Wi-Fi login</title><p>Please sign in.</p>');
    }
    let body = await readFile(join(this.root, b.replace?.get(path) ?? path)).catch(() => undefined);
    if (!body) {
      res.writeHead(404, CORS);
      return void res.end();
    }
    if (b.flipBit?.path === path) {
      body = Buffer.from(body);
      body[b.flipBit.offset]! ^= 0x01;
    }
    if (b.truncate === path) body = body.subarray(0, Math.floor(body.length / 2));
    const range = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
    if (!range) {
      this.log.push({ path, complete: true });
      res.writeHead(200, { ...CORS, 'Content-Type': 'application/octet-stream', 'Content-Length': body.length });
      return void res.end(body);
    }
    const start = Number(range[1]);
    if (b.stallAfter !== undefined && this.completedRanges().length >= b.stallAfter) {
      this.hanging.add(res);
      return;
    }
    if (b.delayMs) await new Promise((r) => setTimeout(r, b.delayMs));
    if (start >= body.length) {
      this.log.push({ path, start, complete: false });
      res.writeHead(416, { ...CORS, 'Content-Range': `bytes */${body.length}` });
      return void res.end();
    }
    const end = Math.min(Number(range[2]), body.length - 1);
    const part = body.subarray(start, end + 1);
    res.writeHead(206, { ...CORS, 'Content-Type': 'application/octet-stream', 'Content-Range': `bytes ${start}-${end}/${body.length}`, 'Content-Length': part.length });
    if (b.cut?.path === path && b.cut.offsets.delete(start)) {
      this.log.push({ path, start, complete: false });
      res.write(part.subarray(0, part.length >> 1));
      setTimeout(() => res.destroy(), 20);
      return;
    }
    this.log.push({ path, start, complete: true });
    res.end(part);
  }
}
