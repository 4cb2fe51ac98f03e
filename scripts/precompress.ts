import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Plugin, ResolvedConfig } from 'vite';

/**
 * Writes `.br` and `.gz` siblings of the built app's text and wasm files, for servers that
 * send a precompressed file when the browser accepts it (scripts/serve.mjs; README, "Serving
 * the build"). Brotli at its best quality shrinks ORT's wasm to about a seventh, but takes about a
 * minute for it on this kind of machine: results are cached by content hash in
 * node_modules/.cache, so only a changed file is compressed again. Node's own zlib: nothing
 * to install.
 */

/**
 * Compressible files. Model files are included: the downloader fetches a file of one chunk
 * whole (no Range), which a server may send compressed; chunks of larger files are fetched by
 * Range, and a Range request is always answered from the plain file.
 */
const COMPRESSIBLE = /\.(?:html|js|mjs|css|json|webmanifest|svg|wasm|onnx|txt)$/;
/** Below this a compressed copy saves less than its own request overhead. */
const MIN_BYTES = 1024;
const CACHE_DIR = resolve('node_modules/.cache/lantern-precompress');

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

const ENCODERS = [
  { name: 'br', suffix: '.br', encode: (bytes: Buffer) => brotli(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }) },
  { name: 'gz', suffix: '.gz', encode: (bytes: Buffer) => gzipAsync(bytes, { level: 9 }) },
] as const;

async function* files(dir: string): AsyncGenerator<string> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (entry.isFile() && COMPRESSIBLE.test(entry.name)) yield path;
  }
}

/** The encoded bytes, from the cache when this exact content was compressed before. */
async function encodeCached(bytes: Buffer, encoder: (typeof ENCODERS)[number]): Promise<Buffer> {
  const key = join(CACHE_DIR, `${createHash('sha256').update(bytes).digest('hex')}${encoder.suffix}`);
  const cached = await readFile(key).catch(() => undefined);
  if (cached) return cached;
  const encoded = await encoder.encode(bytes);
  await mkdir(CACHE_DIR, { recursive: true });
  // Rename into place: a parallel build never reads a half-written entry. The name is unique per
  // write: two files with the same content in one build (same key, same process) once shared it,
  // and the second rename failed on a fresh machine's empty cache.
  const partial = `${key}.${process.pid}.${randomUUID()}.tmp`;
  await writeFile(partial, encoded);
  await rename(partial, key);
  return encoded;
}

/** The compressed copies of a file precompress writes: each encoding's, when smaller than the file. */
async function copiesOf(path: string, bytes: Buffer): Promise<{ encoder: (typeof ENCODERS)[number]; encoded: Buffer }[]> {
  if (!COMPRESSIBLE.test(path) || bytes.length < MIN_BYTES) return [];
  const copies = [];
  for (const encoder of ENCODERS) {
    const encoded = await encodeCached(bytes, encoder);
    // Kept only when smaller: the server then never sends a larger "compressed" file.
    if (encoded.length < bytes.length) copies.push({ encoder, encoded });
  }
  return copies;
}

/**
 * The bytes a browser downloads for a built file from a host that serves these copies (brotli,
 * which every browser Lantern runs in accepts), before precompress has written them: what the
 * app tells a user a download will cost (scripts/offline-files.ts).
 */
export async function servedSize(path: string): Promise<number> {
  const bytes = await readFile(path);
  return (await copiesOf(path, bytes)).find((copy) => copy.encoder.name === 'br')?.encoded.length ?? bytes.length;
}

/** Compresses every eligible file under `dir`; returns what was written, for the build log. */
export async function precompress(dir: string): Promise<{ path: string; bytes: number; br?: number; gz?: number }[]> {
  const jobs = [];
  for await (const path of files(dir)) {
    jobs.push((async () => {
      const bytes = await readFile(path);
      const written: { path: string; bytes: number; br?: number; gz?: number } = { path: relative(dir, path), bytes: bytes.length };
      for (const { encoder, encoded } of await copiesOf(path, bytes)) {
        await writeFile(path + encoder.suffix, encoded);
        written[encoder.name] = encoded.length;
      }
      return written;
    })());
  }
  return Promise.all(jobs);
}

export function precompressPlugin(): Plugin {
  let config: ResolvedConfig;
  return {
    name: 'lantern-precompress',
    apply: 'build',
    configResolved(resolved) {
      config = resolved;
    },
    // closeBundle hooks run in parallel by default: this one waits for the others (sw.js).
    closeBundle: {
      sequential: true,
      order: 'post',
      async handler() {
        const outDir = resolve(config.root, config.build.outDir);
        const written = await precompress(outDir);
        const total = (key: 'bytes' | 'br' | 'gz') => written.reduce((n, w) => n + (w[key] ?? w.bytes), 0);
        config.logger.info(`precompressed ${written.filter((w) => w.br !== undefined).length} files: ${total('bytes')} bytes → br ${total('br')}, gzip ${total('gz')}`);
      },
    },
  };
}
