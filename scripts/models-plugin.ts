import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Plugin } from 'vite';
import { signaturePathFor } from '../src/runtime/store/catalog.ts';
import { BUILTIN_CATALOG, type RegistryConfig } from '../src/runtime/store/config.ts';
import { generateKey, parseKeyFile, trustEntryFor, TrustStoreSchema, type KeyFile, type TrustStoreFile } from '../src/runtime/store/trust.ts';
import { readModelFolder } from './model-pack/folder.ts';
import { daysAfter, packRelease, RELEASE_VALIDITY_DAYS, signedCatalog } from './model-pack/release.ts';
import { contentType, sendBody } from './static-http.mjs';

/**
 * Publishes the built-in models (models/<id>/) as signed releases under /models/ (catalog +
 * manifest + signature + files), with `trust-store.json` and `registry-config.json` at the root.
 * The app installs them into its verified store on first start, exactly as it would an update.
 *
 * Build-time configuration (environment):
 *   LANTERN_SIGNING_KEY     key file (npm run model:keygen); default .keys/builtin-signing-key.json,
 *                           generated on first build (.keys/ is gitignored)
 *   LANTERN_TRUSTED_KEYS    a trust-store JSON whose keys are trusted too (other publishers), each
 *                           for the model ids and namespaces in its "scope" only
 *   LANTERN_CATALOG_URL     catalog checked for updates (default: the built-in catalog)
 *   LANTERN_ALLOWED_ORIGINS comma-separated origins releases may come from (default: none but
 *                           the app's own; the server's CSP connect-src must allow them too)
 */
const ROOT = new URL('../', import.meta.url).pathname;
const MODELS_DIR = join(ROOT, 'models');
const DEFAULT_KEY = join(ROOT, '.keys', 'builtin-signing-key.json');

async function signingKey(): Promise<KeyFile> {
  const path = process.env.LANTERN_SIGNING_KEY ?? DEFAULT_KEY;
  const existing = await readFile(path, 'utf8').catch(() => undefined);
  if (existing !== undefined) return parseKeyFile(JSON.parse(existing));
  if (process.env.LANTERN_SIGNING_KEY) throw new Error('LANTERN_SIGNING_KEY points at a file that cannot be read.');
  const key = await generateKey('Built-in models (local build key)');
  await mkdir(join(ROOT, '.keys'), { recursive: true });
  // 'wx': if a parallel build created it first, use theirs.
  return writeFile(path, `${JSON.stringify(key, null, 1)}\n`, { mode: 0o600, flag: 'wx' }).then(
    () => key,
    async () => parseKeyFile(JSON.parse(await readFile(path, 'utf8'))),
  );
}

async function extraTrustedKeys(): Promise<TrustStoreFile['keys']> {
  const path = process.env.LANTERN_TRUSTED_KEYS;
  if (!path) return [];
  return TrustStoreSchema.parse(JSON.parse(await readFile(path, 'utf8'))).keys;
}

/** Every published file by URL path (no leading slash). */
async function publishBuiltinModels(dir = MODELS_DIR): Promise<Map<string, Uint8Array>> {
  const key = await signingKey();
  const out = new Map<string, Uint8Array>();
  const entries = [];
  const folders = (await readdir(dir, { withFileTypes: true })).filter((e) => e.isDirectory() && !e.name.startsWith('_')).map((e) => e.name).sort();
  for (const name of folders) {
    const model = await readModelFolder(join(dir, name)).catch(() => undefined);
    if (!model) continue;
    // The sources' newest mtime as creation time: rebuilding unchanged models gives identical bytes.
    const release = await packRelease(model, { keys: [key], createdAt: model.newestMtime.toISOString() });
    for (const [path, bytes] of release.published) out.set(`models/${path}`, bytes);
    entries.push(release.entry);
  }
  const json = (value: unknown) => new TextEncoder().encode(`${JSON.stringify(value, null, 1)}\n`);
  // Built-ins ship with the app, so their catalog stays fresh as long as their releases do: an
  // app not rebuilt for a month must still install its own models on a new device.
  const now = new Date();
  const { catalog, signature } = await signedCatalog(entries, { keys: [key], now, expiresAt: daysAfter(now.toISOString(), RELEASE_VALIDITY_DAYS) });
  out.set(BUILTIN_CATALOG, catalog);
  out.set(signaturePathFor(BUILTIN_CATALOG), signature);
  // The built-in key is delegated exactly the built-in models, nothing else.
  const trust: TrustStoreFile = { keys: [trustEntryFor(key, entries.map((e) => e.id)), ...(await extraTrustedKeys())] };
  out.set('trust-store.json', json(trust));
  const config: RegistryConfig = {
    catalogUrl: process.env.LANTERN_CATALOG_URL ?? BUILTIN_CATALOG,
    allowedOrigins: (process.env.LANTERN_ALLOWED_ORIGINS ?? '').split(',').map((s) => s.trim()).filter(Boolean),
  };
  out.set('registry-config.json', json(config));
  return out;
}

export function builtinModels(): Plugin {
  let published: Promise<Map<string, Uint8Array>> | undefined;
  const load = () => (published ??= publishBuiltinModels());
  return {
    name: 'lantern-builtin-models',
    configureServer(server) {
      server.middlewares.use(async (req, res, next) => {
        const path = (req.url ?? '').split('?')[0]!.replace(/^\//, '');
        const bytes = (await load()).get(path);
        if (!bytes) return next();
        sendBody(req, res, bytes, { 'Content-Type': contentType(path) });
      });
    },
    async generateBundle() {
      for (const [fileName, source] of await load()) this.emitFile({ type: 'asset', fileName, source });
    },
  };
}
