import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod/mini';
import { ValidationError } from '../../src/runtime/errors.ts';
import { describeSchemaError } from '../../src/runtime/schema.ts';
import { generateKey, KeyFileSchema, ScopeEntry, sign, TrustStore, trustEntryFor, TrustStoreSchema, type KeyFile, type TrustStoreFile } from '../../src/runtime/store/trust.ts';

/**
 * Publisher key files as the CLI writes and reads them: the key (trust.ts' KeyFile) plus the
 * scope the publisher asked for at keygen, so `pack` can refuse an id the deployment's trust store
 * will refuse anyway (devices would refuse the whole catalog). The deployment decides the real
 * scope; a key file from before the scope was recorded has none and is not checked.
 */
export interface PublisherKey {
  /** As the user typed it: every message names it. */
  path: string;
  key: KeyFile;
  scope?: string[];
}

const KeyFileWithScope = z.extend(KeyFileSchema, { scope: z.optional(z.array(ScopeEntry).check(z.minLength(1))) });

/** Writes a new key file (never over an existing file), with its scope when one is given. */
export async function writePublisherKey(path: string, name: string, scope: readonly string[]): Promise<KeyFile> {
  const key = await generateKey(name);
  const file = scope.length ? { ...key, scope } : key;
  // Its folder too (~/keys on a fresh machine), readable by its owner only, like the file.
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFile(path, `${JSON.stringify(file, null, 1)}\n`, { mode: 0o600, flag: 'wx' });
  return key;
}

/** Signed and verified when a key is read: a key file whose halves do not belong together signs releases no device accepts. */
const PROBE = new TextEncoder().encode('lantern key pair check');

/** Whether the key's private half makes signatures its public half verifies. */
async function pairMatches(key: KeyFile): Promise<boolean> {
  const signature = await sign(PROBE, key);
  const store = new TrustStore({ keys: [trustEntryFor(key, ['probe'])] });
  return store.signers(PROBE, { signatures: [signature] }).then(() => true, () => false);
}

/** A file's JSON, or `notJson` as a ValidationError; system errors (a missing file) reach the CLI, which names the path. */
async function readJson(path: string, notJson: string): Promise<unknown> {
  const text = await readFile(path, 'utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ValidationError(notJson);
  }
}

/** Reads and checks a key file; system errors (a missing file) reach the CLI, which names the path. */
export async function readPublisherKey(path: string): Promise<PublisherKey> {
  const json = await readJson(path, `${path} is not a key file written by model:keygen (it is not JSON).`);
  const parsed = KeyFileWithScope.safeParse(json);
  if (!parsed.success) throw new ValidationError(`${path} is not a key file written by model:keygen.`);
  const { scope, ...key } = parsed.data;
  const matches = await pairMatches(key).catch(() => {
    throw new ValidationError(`${path} holds a private key that cannot be used (damaged or cut short); make a new key with model:keygen.`);
  });
  if (!matches) throw new ValidationError(`${path} holds a private key that does not belong to its public key, so devices would refuse what it signs; use the key file model:keygen wrote.`);
  // Group or others may read it: a warning, not a refusal (the publisher may have reasons).
  if (((await stat(path)).mode & 0o077) !== 0) console.warn(`Warning: other users may read the key ${path}; restrict it with chmod 600 ${path}.`);
  return { path, key, ...(scope ? { scope } : {}) };
}

/**
 * Refuses a model id outside a key's recorded scope, with the same rule as the app's trust store;
 * a key without a recorded scope is warned about, not refused.
 */
export function checkScope(keys: readonly PublisherKey[], ids: readonly string[]): void {
  for (const { path, key, scope } of keys) {
    if (!scope) {
      console.warn(`Warning: ${path} records no scope (it was made without model:keygen --scope), so whether the app lets it sign ${[...new Set(ids)].join(', ')} cannot be checked here.`);
      continue;
    }
    const store = new TrustStore({ keys: [trustEntryFor(key, scope)] });
    const outside = ids.find((id) => !store.allows(key.keyId, id));
    if (outside !== undefined) {
      throw new ValidationError(`${path} may sign only ${scope.join(', ')}, so the app would refuse ${outside}: give the model an id in that scope (--id), or, if the deployment trusts this key for ${outside}, add it to "scope" in ${path}.`);
    }
  }
}

/**
 * A trust store file as a publisher hands it to the tools (model:verify --trust, the build's
 * LANTERN_TRUSTED_KEYS): a whole trust store, or the one entry model:keygen prints, taken as a
 * one-key trust store (an entry has a keyId, a store has keys). A file that cannot be read reaches
 * the caller as it is: the CLI names the path and what to do.
 */
export async function readTrustStoreFile(path: string): Promise<TrustStoreFile> {
  const json = await readJson(path, `${path} is not JSON.`);
  const store = typeof json === 'object' && json !== null && 'keyId' in json ? { keys: [json] } : json;
  const parsed = TrustStoreSchema.safeParse(store);
  if (!parsed.success) {
    throw new ValidationError(`${path} is not a trust store, {"keys": [entry, …]}, nor one entry as model:keygen prints it, each with keyId, publicKey, name and a non-empty scope (${describeSchemaError('it', parsed.error).slice(0, -1)}).`);
  }
  return parsed.data;
}
