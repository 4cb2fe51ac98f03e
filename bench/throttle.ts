/**
 * A slow link in front of a local server, for first-visit measurements: every response waits one
 * round trip before its first byte, and all response bytes share one bandwidth budget. It also
 * counts the bytes that crossed it (bodies as sent, so compressed when the server compressed).
 * Done here rather than with CDP's per-target network emulation so that the page, its workers,
 * ORT's threads and the service worker all share the one link, as they would on a real phone.
 */
import { createServer, request, type Server } from 'node:http';

export interface Link {
  /** Response bytes (headers and bodies) sent since the last reset. */
  bytes(): number;
  reset(): void;
  close(): Promise<void>;
}

export function throttledProxy(options: { listen: number; target: number; bitsPerSecond: number; rttMs: number }): Promise<Link> {
  const bytesPerMs = options.bitsPerSecond / 8 / 1000;
  let sent = 0;
  /** When the shared link is free again (ms, Date.now clock). */
  let linkFreeAt = 0;
  /** Resolves when `size` bytes have had their turn on the link. */
  const transmit = (size: number) => {
    const start = Math.max(Date.now(), linkFreeAt);
    linkFreeAt = start + size / bytesPerMs;
    sent += size;
    return new Promise<void>((resolve) => setTimeout(resolve, linkFreeAt - Date.now()));
  };
  const server: Server = createServer((req, res) => {
    setTimeout(() => {
      const upstream = request({ host: '127.0.0.1', port: options.target, path: req.url, method: req.method, headers: req.headers }, (response) => {
        const head = Object.entries(response.headers).reduce((n, [k, v]) => n + k.length + String(v).length + 4, 20);
        void transmit(head).then(() => {
          res.writeHead(response.statusCode ?? 502, response.headers);
          response.on('data', (chunk: Buffer) => {
            response.pause();
            void transmit(chunk.length).then(() => {
              res.write(chunk);
              response.resume();
            });
          });
          response.on('end', () => void transmit(0).then(() => res.end()));
        });
      });
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    }, options.rttMs);
  });
  return new Promise((resolve) => server.listen(options.listen, '127.0.0.1', () => resolve({
    bytes: () => sent,
    reset: () => {
      sent = 0;
    },
    close: () => new Promise<void>((done) => {
      server.closeAllConnections();
      server.close(() => done());
    }),
  })));
}
