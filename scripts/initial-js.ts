import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';

/**
 * The JavaScript a build's index.html loads before anything is opened, and what it weighs
 * compressed: issue 14's target f, one definition for the benchmark (which reports it) and the
 * size test (which fails the build's tests when it grows past the budget).
 */
export const INITIAL_JS_BUDGET = 60 * 1024;

export interface InitialJs {
  /** Paths relative to the build folder (`assets/index-….js`). */
  files: string[];
  /** Bytes once compressed by Node's zlib at level 9, and by brotli at its default quality. */
  gzip: number;
  brotli: number;
  /** The build's other scripts: loaded when a view, a language or a worker needs them. */
  lazy: string[];
}

export function initialJs(dist: string): InitialJs {
  const html = readFileSync(join(dist, 'index.html'), 'utf8');
  const files = [...html.matchAll(/(?:src|href)="\/?(assets\/[^"]+\.js)"/g)].map((m) => m[1]!);
  const bodies = files.map((f) => readFileSync(join(dist, f)));
  return {
    files,
    gzip: bodies.reduce((n, b) => n + gzipSync(b, { level: 9 }).length, 0),
    brotli: bodies.reduce((n, b) => n + brotliCompressSync(b).length, 0),
    lazy: readdirSync(join(dist, 'assets')).filter((f) => f.endsWith('.js') && !files.includes(`assets/${f}`)),
  };
}
