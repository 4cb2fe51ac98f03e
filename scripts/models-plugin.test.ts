import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKey, trustEntryFor } from '../src/runtime/store/trust.ts';

/**
 * `vite build` with a wrong build-time configuration (scripts/models-plugin.ts) stops before
 * anything is built, with one sentence naming the variable and its file, not with what a later
 * plugin says about the bundle it never got.
 */
const ROOT = join(import.meta.dirname, '..');
let work: string;
let signingKey: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'lantern-build-config-'));
  signingKey = join(work, 'signing-key.json');
  await writeFile(signingKey, JSON.stringify(await generateKey('build')), { mode: 0o600 });
});
afterAll(() => rm(work, { recursive: true, force: true }));

/** Runs `vite build` with these variables (into `outDir`): its exit code and the first line of its error. */
const build = (env: Record<string, string>, outDir = join(work, 'dist')) => new Promise<{ code: number; error: string }>((resolve) => {
  execFile(process.execPath, [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--outDir', outDir, '--emptyOutDir'], { cwd: ROOT, env: { ...process.env, LANTERN_SIGNING_KEY: signingKey, ...env } }, (error, _stdout, stderr) => {
    resolve({ code: error ? Number(error.code) : 0, error: /^Error: (.*)$/m.exec(stderr)?.[1] ?? stderr });
  });
});

describe('vite build refuses a wrong configuration, naming it', () => {
  it('LANTERN_TRUSTED_KEYS: a missing file, or JSON that is neither a trust store nor one entry', async () => {
    const missing = join(work, 'no-such-trust.json');
    const notStore = join(work, 'not-a-store.json');
    await writeFile(notStore, JSON.stringify({ trusted: [] }));
    const [absent, wrong] = await Promise.all([build({ LANTERN_TRUSTED_KEYS: missing }), build({ LANTERN_TRUSTED_KEYS: notStore })]);
    expect(absent).toEqual({ code: 1, error: `LANTERN_TRUSTED_KEYS: ${missing} does not exist: check the path (files are written only into folders that exist).` });
    expect(wrong.code).toBe(1);
    expect(wrong.error).toMatch(new RegExp(`^LANTERN_TRUSTED_KEYS: ${notStore} is not a trust store, \\{"keys": \\[entry, …\\]\\}, nor one entry as model:keygen prints it, each with keyId, publicKey, name and a non-empty scope \\(it is not valid at "keys": .+\\)\\.$`));
  }, 60_000);

  it('LANTERN_TRUSTED_KEYS: thresholds devices could never meet (more signatures than keys, or over the built-in models); a reachable one is published', async () => {
    const [acme, acme2] = await Promise.all([generateKey('Acme'), generateKey('Acme 2')]);
    const write = async (name: string, store: object) => {
      await writeFile(join(work, name), JSON.stringify(store));
      return join(work, name);
    };
    const [tooFew, overBuiltins, reachable] = await Promise.all([
      write('too-few.json', { keys: [trustEntryFor(acme, ['acme/'])], thresholds: [{ scope: ['acme/'], signatures: 2 }] }),
      write('over-builtins.json', { keys: [trustEntryFor(acme, ['acme/', 'spam-filter'])], thresholds: [{ scope: ['spam-filter'], signatures: 2 }] }),
      write('reachable.json', { keys: [trustEntryFor(acme, ['acme/']), trustEntryFor(acme2, ['acme/'])], thresholds: [{ scope: ['acme/'], signatures: 2 }] }),
    ]);
    const outDir = join(work, 'dist-threshold');
    const [few, builtins, ok] = await Promise.all([build({ LANTERN_TRUSTED_KEYS: tooFew }), build({ LANTERN_TRUSTED_KEYS: overBuiltins }), build({ LANTERN_TRUSTED_KEYS: reachable }, outDir)]);
    expect(few).toEqual({ code: 1, error: 'LANTERN_TRUSTED_KEYS: acme/ needs 2 signatures from different keys, but only 1 key may sign all of it: devices would refuse every release there.' });
    expect(builtins.code).toBe(1);
    expect(builtins.error).toMatch(/^LANTERN_TRUSTED_KEYS: its thresholds cover built-in models, which the build signs with one key: spam-filter needs signatures from 2 different trusted keys, and this has 1 /);
    expect(ok.code).toBe(0);
    const published = JSON.parse(await readFile(join(outDir, 'trust-store.json'), 'utf8')) as { keys: { keyId: string }[]; thresholds: unknown };
    expect(published.thresholds).toEqual([{ scope: ['acme/'], signatures: 2 }]);
    expect(published.keys.map((k) => k.keyId)).toEqual(expect.arrayContaining([acme.keyId, acme2.keyId]));
  }, 120_000);

  it('LANTERN_SIGNING_KEY: a file that is not a key', async () => {
    const garbage = join(work, 'garbage-key.json');
    await writeFile(garbage, 'not a key', { mode: 0o600 });
    expect(await build({ LANTERN_SIGNING_KEY: garbage })).toEqual({ code: 1, error: `LANTERN_SIGNING_KEY: ${garbage} is not a key file written by model:keygen (it is not JSON).` });
  }, 60_000);

  it('LANTERN_ALLOWED_ORIGINS: a plain-http origin other than loopback, which devices refuse (and the bare trust entry keygen prints is accepted)', async () => {
    // The entry is read first: the build gets as far as the origins only if it was accepted.
    const entry = join(work, 'entry.json');
    await writeFile(entry, JSON.stringify(trustEntryFor(await generateKey('acme'), ['acme/'])));
    expect(await build({ LANTERN_TRUSTED_KEYS: entry, LANTERN_ALLOWED_ORIGINS: 'https://ok.example.org, http://models.example.org' }))
      .toEqual({ code: 1, error: 'LANTERN_ALLOWED_ORIGINS: http://models.example.org is not an acceptable model origin: use https (plain http only for localhost).' });
    expect((await build({ LANTERN_ALLOWED_ORIGINS: 'models.example.org' })).error).toBe('LANTERN_ALLOWED_ORIGINS: models.example.org is not an origin such as https://models.example.org.');
  }, 60_000);
});
