#!/usr/bin/env tsx
/**
 * Publishes a folder of signed releases (what `model:pack --out <dir>` writes) for Lantern apps
 * (usage below; `npm run model:serve -- <dir>` in a clone of this repository).
 * The signed catalog (`catalog.json` + `catalog.sig.json`) is the one `model:pack` wrote and
 * re-signs on every pack, so packing another release while serving just works. Files are served
 * with Range support and CORS + `Cross-Origin-Resource-Policy: cross-origin`, which a
 * cross-origin-isolated app needs. Any static host with the same headers works too (README,
 * "Add your own model").
 */
import { createServer } from 'node:http';
import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { contentType, realRoot, resolveInside, sendBody } from './static-http.mjs';
import { integerOption, isEntryPoint, parseCommandLine, resolvePathsFromWhereTyped, runCli, UsageError } from './cli.mjs';

export const RELEASE_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Headers': 'Range',
  'Access-Control-Expose-Headers': 'Content-Range, Content-Length',
  'Cross-Origin-Resource-Policy': 'cross-origin',
  'Cache-Control': 'no-cache',
};

export function releaseServer(rootDir: string) {
  // Resolved once, symlinks included: files are served only if their real path lies inside it.
  const root = realRoot(rootDir);
  return createServer((req, res) => {
    void (async () => {
      if (req.method === 'OPTIONS') {
        res.writeHead(204, RELEASE_HEADERS);
        return void res.end();
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { ...RELEASE_HEADERS, Allow: 'GET, HEAD, OPTIONS' });
        return void res.end();
      }
      const found = await resolveInside(await root, req.url ?? '/');
      if (found.status !== 200) {
        res.writeHead(found.status, RELEASE_HEADERS);
        return void res.end();
      }
      sendBody(req, res, { path: found.file, size: found.size }, { ...RELEASE_HEADERS, 'Content-Type': contentType(found.file) });
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500, RELEASE_HEADERS);
      res.end();
    });
  });
}

export const USAGE = `Usage:
  lantern-model-serve <releases-dir> [--port 8787] [--host 127.0.0.1]
  lantern-model-serve --help | --version

Serves the signed releases that model:pack wrote into <releases-dir>, with the signed catalog
model:pack wrote (/catalog.json). In this repository: npm run model:serve -- <releases-dir>.
Exit codes: 0 stopped, 1 failed (e.g. port in use), 2 usage error.`;

/** Starts the server; resolves once it listens (and stays up until the process is stopped). */
export async function serveCli(args: string[]): Promise<void> {
  const { values, positionals } = parseCommandLine({ args, allowPositionals: true, options: { port: { type: 'string', default: '8787' }, host: { type: 'string', default: '127.0.0.1' } } });
  const [dir, ...extra] = positionals;
  if (!dir) throw new UsageError('a releases folder is needed.');
  if (extra.length) throw new UsageError('only one releases folder can be served.');
  const port = integerOption('port', values.port, { max: 65535 });
  const info = await stat(dir).catch(() => undefined);
  if (!info?.isDirectory()) throw new Error(`${dir} is not a folder.`);
  if (!(await stat(join(dir, 'catalog.json')).catch(() => undefined))?.isFile()) throw new Error(`${dir} has no catalog.json: serve the releases folder model:pack --out wrote.`);
  const server = releaseServer(dir);
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(port, values.host, resolveListen);
  });
  // 0.0.0.0 or :: is every address of this machine, not an origin a device can be told to allow.
  const everyAddress = values.host === '0.0.0.0' || values.host === '::';
  console.log(`Serving ${resolve(dir)}; signed catalog at http://${everyAddress ? 'localhost' : values.host}:${port}/catalog.json${everyAddress ? ' (and at this machine\'s other addresses)' : ''}`);
  console.log(`Allow this origin in the app: LANTERN_ALLOWED_ORIGINS at build time (or registry-config.json allowedOrigins) and the CSP connect-src (serve.mjs --connect-src).${everyAddress ? ' Devices other than this one need it over https (behind a TLS proxy): the app accepts plain http from localhost only.' : ''}`);
}

if (isEntryPoint(import.meta.url)) {
  resolvePathsFromWhereTyped();
  void runCli({ name: 'lantern-model-serve', usage: USAGE }, process.argv.slice(2), serveCli);
}
