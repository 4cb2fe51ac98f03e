import { existsSync } from 'node:fs';
import { mkdir, readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Plugin } from 'vite';
import { signaturePathFor } from '../src/runtime/store/catalog.ts';
import { BUILTIN_CATALOG, type RegistryConfig } from '../src/runtime/store/config.ts';
import { TrustStore, trustEntryFor, unreachableThresholds, type KeyFile, type TrustStoreFile } from '../src/runtime/store/trust.ts';
import { systemErrorSentence } from './cli.mjs';
import { modelOrigin } from './headers.mjs';
import { readPublisherKey, readTrustStoreFile, writePublisherKey } from './model-pack/keys.ts';
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
 *                           for the model ids and namespaces in its "scope" only, with its
 *                           "thresholds"; or one entry as model:keygen prints it
 *   LANTERN_CATALOG_URL     catalog checked for updates (default: the built-in catalog)
 *   LANTERN_ALLOWED_ORIGINS comma-separated origins releases may come from (default: none but
 *                           the app's own; https, or plain http on loopback only; the server's
 *                           CSP connect-src must allow them too)
 */
const ROOT = new URL('../', import.meta.url).pathname;
const MODELS_DIR = join(ROOT, 'models');
const DEFAULT_KEY = join(ROOT, '.keys', 'builtin-signing-key.json');

/** The build's configuration from the environment, read and checked before anything is built. */
interface BuildConfiguration {
  key: KeyFile;
  /** What LANTERN_TRUSTED_KEYS adds to the built-in key: other publishers' keys and thresholds. */
  lent: Pick<TrustStoreFile, 'keys' | 'thresholds'>;
  catalogUrl: string;
  allowedOrigins: string[];
}

/** A configuration error: one sentence naming the variable (and its file), whatever went wrong. */
async function fromEnv<T>(variable: string, read: () => Promise<T> | T): Promise<T> {
  try {
    return await read();
  } catch (error) {
    throw new Error(`${variable}: ${systemErrorSentence(error) ?? (error as Error).message}`);
  }
}

async function signingKey(): Promise<KeyFile> {
  const configured = process.env.LANTERN_SIGNING_KEY;
  if (configured) return (await fromEnv('LANTERN_SIGNING_KEY', () => readPublisherKey(configured))).key;
  if (!existsSync(DEFAULT_KEY)) {
    await mkdir(dirname(DEFAULT_KEY), { recursive: true });
    // 'wx' (in writePublisherKey): if a parallel build created it first, use theirs.
    await writePublisherKey(DEFAULT_KEY, 'Built-in models (local build key)', []).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
  }
  return (await readPublisherKey(DEFAULT_KEY)).key;
}

async function lentTrust(): Promise<BuildConfiguration['lent']> {
  const path = process.env.LANTERN_TRUSTED_KEYS;
  if (!path) return { keys: [] };
  return fromEnv('LANTERN_TRUSTED_KEYS', async () => {
    const { keys, thresholds } = await readTrustStoreFile(path);
    return { keys, ...(thresholds ? { thresholds } : {}) };
  });
}

/** Each origin held to the runtime's rule (https, plain http on loopback): devices would refuse the whole configuration otherwise. */
function allowedOrigins(): Promise<string[]> {
  const listed = (process.env.LANTERN_ALLOWED_ORIGINS ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  return fromEnv('LANTERN_ALLOWED_ORIGINS', () => listed.map(modelOrigin));
}

async function readBuildConfiguration(): Promise<BuildConfiguration> {
  return {
    key: await signingKey(),
    lent: await lentTrust(),
    catalogUrl: process.env.LANTERN_CATALOG_URL ?? BUILTIN_CATALOG,
    allowedOrigins: await allowedOrigins(),
  };
}

/**
 * Refuses a trust store whose thresholds devices could never meet: one its keys cannot reach, or
 * one asking more than the build key's single signature of the built-in releases and catalog.
 */
function assertThresholdsMet(trust: TrustStoreFile, key: KeyFile, builtinIds: string[]): void {
  const unreachable = unreachableThresholds(trust);
  if (unreachable.length > 0) throw new Error(`LANTERN_TRUSTED_KEYS: ${unreachable.join('; ')}: devices would refuse every release there.`);
  try {
    new TrustStore(trust).authorizeCatalog([key.keyId], builtinIds);
  } catch (error) {
    throw new Error(`LANTERN_TRUSTED_KEYS: its thresholds cover built-in models, which the build signs with one key: ${(error as Error).message}`);
  }
}

/** Every published file by URL path (no leading slash). */
async function publishBuiltinModels({ key, lent, catalogUrl, allowedOrigins }: BuildConfiguration, dir = MODELS_DIR): Promise<Map<string, Uint8Array>> {
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
  // The built-in key is delegated exactly the built-in models, nothing else. The version is the
  // build time in seconds: each build's trust store supersedes every earlier one (devices refuse
  // an older version, so a stale copy cannot bring back a key a later build dropped) without a
  // counter to keep, and a build that changes the trust store (a model or key added) can never
  // reuse a version. A trust store given in LANTERN_TRUSTED_KEYS lends its keys and thresholds,
  // not its version.
  const trust: TrustStoreFile = { version: Math.floor(now.getTime() / 1000), keys: [trustEntryFor(key, entries.map((e) => e.id)), ...lent.keys], ...(lent.thresholds ? { thresholds: lent.thresholds } : {}) };
  assertThresholdsMet(trust, key, entries.map((e) => e.id));
  out.set('trust-store.json', json(trust));
  const config: RegistryConfig = { catalogUrl, allowedOrigins };
  out.set('registry-config.json', json(config));
  return out;
}

export function builtinModels(): Plugin {
  let configuration: Promise<BuildConfiguration> | undefined;
  let published: Promise<Map<string, Uint8Array>> | undefined;
  const configure = () => (configuration ??= readBuildConfiguration());
  const load = () => (published ??= configure().then((config) => publishBuiltinModels(config)));
  return {
    name: 'lantern-builtin-models',
    // Before anything is built, so a configuration error is the one error the build reports
    // (the trust store's thresholds are checked against the built-in models it publishes).
    async configResolved() {
      await load();
    },
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
