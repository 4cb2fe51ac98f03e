import { existsSync } from 'node:fs';
import { chmod, cp, mkdir, mkdtemp, readFile, realpath, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openBundle } from '../src/runtime/store/bundle.ts';
import { parseCatalog } from '../src/runtime/store/catalog.ts';
import { parseSignatureFile, TrustStore, trustEntryFor, type KeyFile, type SignatureFile, type TrustStoreFile } from '../src/runtime/store/trust.ts';
import { runCli } from './cli.mjs';
import { modelCli, USAGE } from './model-cli.ts';

/**
 * lantern-model as a publisher meets it: each refusal is one sentence naming the path, and
 * happens before anything is written. In-process through runCli (what the process runs), with
 * console output captured, on the built-in fashion-mnist model (23 KB).
 */
const ROOT = join(import.meta.dirname, '..');
const FASHION = join(ROOT, 'models/fashion-mnist');
let work: string;
let n = 0;
/** A fresh path inside the work folder. */
const fresh = (name: string) => join(work, `${n++}-${name}`);

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'lantern-model-cli-'));
});
afterAll(() => rm(work, { recursive: true, force: true }));

/** Runs `lantern-model ...args`: the exit code and everything it printed. */
async function lantern(...args: string[]) {
  let stdout = '';
  let stderr = '';
  const log = vi.spyOn(console, 'log').mockImplementation((text: string) => void (stdout += `${text}\n`));
  const warn = vi.spyOn(console, 'warn').mockImplementation((text: string) => void (stderr += `${text}\n`));
  try {
    const code = await runCli({ name: 'lantern-model', usage: USAGE }, args, modelCli, { out: (t) => (stdout += `${t}\n`), err: (t) => (stderr += `${t}\n`), exit: () => {} });
    return { code, stdout, stderr };
  } finally {
    log.mockRestore();
    warn.mockRestore();
  }
}

/** A key made by keygen (0600, as keygen writes it). */
async function keygen(...extra: string[]): Promise<string> {
  const path = fresh('key.json');
  expect((await lantern('keygen', '--out', path, ...extra)).code).toBe(0);
  return path;
}

const readKey = async (path: string) => JSON.parse(await readFile(path, 'utf8')) as KeyFile & { scope?: string[] };

/** fashion-mnist as a hub folder (no "lantern" block), so --id and --version decide them. */
async function hubFashion(): Promise<string> {
  const folder = join(fresh('src'), 'fashion-mnist');
  await cp(FASHION, folder, { recursive: true, filter: (p) => !/\/(recipe|eval|samples)(\/|$)|model\.onnx$/.test(p) });
  const config = JSON.parse(await readFile(join(folder, 'config.json'), 'utf8')) as Record<string, unknown>;
  delete config.lantern;
  await writeFile(join(folder, 'config.json'), JSON.stringify(config));
  return folder;
}

describe('keygen', () => {
  it('records the scope in the key file and refuses a scope entry the trust store would refuse', async () => {
    expect((await readKey(await keygen('--scope', 'acme/, fashion-mnist'))).scope).toEqual(['acme/', 'fashion-mnist']);
    expect('scope' in (await readKey(await keygen()))).toBe(false);
    const bad = await lantern('keygen', '--out', fresh('key.json'), '--scope', 'Acme Models/');
    expect([bad.code, bad.stderr]).toEqual([2, 'lantern-model: --scope entry "Acme Models/" is not a model id or a namespace ending in /.\nRun with --help for usage.\n']);
  });

  it('creates a missing folder for the key (owner only), and names the path when the file exists, never overwriting it', async () => {
    const folder = fresh('keys');
    expect((await lantern('keygen', '--out', join(folder, 'key.json'), '--scope', 'acme/')).code).toBe(0);
    expect((await stat(folder)).mode & 0o777).toBe(0o700);
    expect((await readKey(join(folder, 'key.json'))).scope).toEqual(['acme/']);
    const existing = await keygen();
    const before = await readFile(existing, 'utf8');
    expect(await lantern('keygen', '--out', existing)).toEqual({ code: 1, stdout: '', stderr: `lantern-model: ${existing} already exists: choose another path, or move the file away (it is never overwritten).\n` });
    expect(await readFile(existing, 'utf8')).toBe(before);
  });
});

describe('pack: the key', () => {
  it('refuses an id outside the key\'s recorded scope before writing anything, and packs one inside it', async () => {
    const acme = await keygen('--scope', 'acme/');
    const out = fresh('out');
    const refused = await lantern('pack', FASHION, '--key', acme, '--out', out);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(`lantern-model: ${acme} may sign only acme/, so the app would refuse fashion-mnist: give the model an id in that scope (--id), or, if the deployment trusts this key for fashion-mnist, add it to "scope" in ${acme}.\n`);
    expect(existsSync(out)).toBe(false);
    // --id overrides a folder's own block (FASHION has one): an id outside the scope is refused all the same.
    const renamed = await lantern('pack', FASHION, '--id', 'other/fashion', '--key', acme, '--out', out);
    expect([renamed.code, renamed.stderr]).toEqual([1, expect.stringMatching(new RegExp(`^lantern-model: ${acme} may sign only acme/, so the app would refuse other/fashion`))]);
    expect(existsSync(out)).toBe(false);
    expect((await lantern('pack', FASHION, '--id', 'acme/fashion', '--key', acme, '--out', fresh('out'))).code).toBe(0);
    expect((await lantern('pack', await hubFashion(), '--id', 'acme/fashion', '--version', '1.0.0', '--key', acme, '--out', out)).code).toBe(0);
  });

  it('packs with a key that records no scope (made without keygen --scope), with a one-line warning', async () => {
    const key = fresh('old-key.json');
    const { scope: _, ...unscoped } = await readKey(await keygen('--scope', 'x'));
    await writeFile(key, JSON.stringify(unscoped), { mode: 0o600 });
    const result = await lantern('pack', FASHION, '--key', key, '--out', fresh('out'));
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(`Warning: ${key} records no scope (it was made without model:keygen --scope), so whether the app lets it sign fashion-mnist cannot be checked here.\n`);
  });

  it('refuses a key file whose private key is cut short or belongs to another key, naming the file', async () => {
    const [a, b] = [await readKey(await keygen('--scope', 'fashion-mnist')), await readKey(await keygen('--scope', 'fashion-mnist'))];
    const short = fresh('short.json');
    await writeFile(short, JSON.stringify({ ...a, privateKey: a.privateKey.slice(0, 24) }), { mode: 0o600 });
    expect((await lantern('pack', FASHION, '--key', short, '--out', fresh('out'))).stderr)
      .toBe(`lantern-model: ${short} holds a private key that cannot be used (damaged or cut short); make a new key with model:keygen.\n`);
    const mixed = fresh('mixed.json');
    await writeFile(mixed, JSON.stringify({ ...a, privateKey: b.privateKey }), { mode: 0o600 });
    expect((await lantern('pack', FASHION, '--key', mixed, '--out', fresh('out'))).stderr)
      .toBe(`lantern-model: ${mixed} holds a private key that does not belong to its public key, so devices would refuse what it signs; use the key file model:keygen wrote.\n`);
    const notKey = fresh('labels.json');
    await writeFile(notKey, '["a", "b"]');
    expect((await lantern('pack', FASHION, '--key', notKey, '--out', fresh('out'))).stderr).toBe(`lantern-model: ${notKey} is not a key file written by model:keygen.\n`);
  });

  it('warns when other users may read the key file', async () => {
    const key = await keygen('--scope', 'fashion-mnist');
    await chmod(key, 0o644);
    const result = await lantern('pack', FASHION, '--key', key, '--out', fresh('out'));
    expect([result.code, result.stderr]).toEqual([0, `Warning: other users may read the key ${key}; restrict it with chmod 600 ${key}.\n`]);
  });
});

describe('pack: the outputs', () => {
  it('refuses the same version again, or a lower one, than the catalog already lists', async () => {
    const key = await keygen('--scope', 'fashion-mnist');
    const source = await hubFashion();
    const out = fresh('out');
    const pack = (version: string) => lantern('pack', source, '--version', version, '--key', key, '--out', out);
    expect((await pack('2.0.0')).code).toBe(0);
    const catalog = await readFile(join(out, 'catalog.json'));
    for (const version of ['2.0.0', '1.5.0']) {
      const result = await pack(version);
      expect(result.code, version).toBe(1);
      expect(result.stderr, version).toMatch(new RegExp(`^lantern-model: ${join(out, 'catalog.json')} already lists fashion-mnist 2\\.0\\.0 \\(sequence \\d+\\), and devices refuse a release that is not newer than one they may have installed: pack fashion-mnist as a higher version\\.\\n$`));
    }
    expect(existsSync(join(out, 'fashion-mnist', '1.5.0'))).toBe(false);
    expect(await readFile(join(out, 'catalog.json'))).toEqual(catalog);
    expect((await pack('2.1.0')).code).toBe(0);
  });

  it('says in the catalog entry which releases ask for shadow, so the Models screen can say so before fetching the manifest', async () => {
    const key = await keygen('--scope', 'fashion-mnist');
    const source = await hubFashion();
    const out = fresh('out');
    expect((await lantern('pack', source, '--version', '1.0.0', '--key', key, '--out', out)).code).toBe(0);
    expect((await lantern('pack', source, '--version', '1.1.0', '--key', key, '--out', out, '--shadow-runs', '20')).code).toBe(0);
    const { releases } = parseCatalog(await readFile(join(out, 'catalog.json')));
    expect(releases.map((r) => [r.version, r.shadow])).toEqual([['1.0.0', undefined], ['1.1.0', true]]);
  });

  it('refuses outputs it cannot write before writing anything: --out onto a file, --bundle into a missing folder', async () => {
    const key = await keygen('--scope', 'fashion-mnist');
    const file = fresh('a-file');
    await writeFile(file, 'x');
    expect((await lantern('pack', FASHION, '--key', key, '--out', file)).stderr).toBe(`lantern-model: --out ${file} is a file: name a folder (it is created if it does not exist).\n`);
    const out = fresh('out');
    const bundle = join(work, 'no-such-folder', 'm.lantern');
    expect((await lantern('pack', FASHION, '--key', key, '--out', out, '--bundle', bundle)).stderr)
      .toBe(`lantern-model: --bundle ${bundle} cannot be written: the folder ${join(work, 'no-such-folder')} does not exist; create it or choose another path.\n`);
    expect(existsSync(out)).toBe(false);
  });

  it('refuses an expiry date in the past as a usage error', async () => {
    const key = await keygen('--scope', 'fashion-mnist');
    for (const flag of ['--expires', '--catalog-expires']) {
      const result = await lantern('pack', FASHION, '--key', key, '--out', fresh('out'), flag, '2020-01-01');
      expect([result.code, result.stderr]).toEqual([2, `lantern-model: ${flag} 2020-01-01 is in the past: what it signs would be expired already; give a later date.\nRun with --help for usage.\n`]);
    }
  });

  it('refuses an expiry further away than devices accept (a release: two years, a catalog: one), writing nothing', async () => {
    const key = await keygen('--scope', 'fashion-mnist');
    for (const [flag, days] of [['--expires', 731], ['--catalog-expires', 366]] as const) {
      const out = fresh('out');
      const result = await lantern('pack', FASHION, '--key', key, '--out', out, flag, '9999-12-31');
      expect([result.code, result.stderr]).toEqual([2, `lantern-model: ${flag} 9999-12-31 is more than ${days} days away: devices refuse what stays valid that long (a mirror could offer it forever); give an earlier date.\nRun with --help for usage.\n`]);
      expect(existsSync(out)).toBe(false);
    }
  });
});

describe('pack: a folder someone else made', () => {
  it.each([
    ['a sample', 'samples/notes.txt'],
    ['its config.json', 'config.json'],
    ['its preprocessor_config.json', 'preprocessor_config.json'],
  ])('refuses %s that links outside the folder (here to the signing key), and writes nothing', async (_what, path) => {
    const key = await keygen('--scope', 'fashion-mnist');
    const folder = join(fresh('downloads'), 'fashion-mnist');
    await cp(FASHION, folder, { recursive: true, filter: (p) => !/\/(recipe|eval)(\/|$)/.test(p) });
    await rm(join(folder, path), { force: true });
    await symlink(key, join(folder, path));
    const out = fresh('out');
    const result = await lantern('pack', folder, '--key', key, '--out', out);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(`${path} in the model folder is a link to ${await realpath(key)}, outside the folder`);
    expect(existsSync(out)).toBe(false);
  });

  it('follows links that stay inside the folder', async () => {
    const key = await keygen('--scope', 'fashion-mnist');
    const folder = join(fresh('linked'), 'fashion-mnist');
    await cp(FASHION, folder, { recursive: true, filter: (p) => !/\/(recipe|eval)(\/|$)/.test(p) });
    await rename(join(folder, 'preprocessor_config.json'), join(folder, 'preprocessor.json'));
    await symlink('preprocessor.json', join(folder, 'preprocessor_config.json'));
    expect((await lantern('pack', folder, '--key', key, '--out', fresh('out'))).code).toBe(0);
  });
});

describe('catalog', () => {
  let key: string;
  let out: string;
  const signers = async (dir: string) => parseSignatureFile(await readFile(join(dir, 'catalog.sig.json'))).signatures.map((s) => s.keyId);

  beforeAll(async () => {
    key = await keygen('--scope', 'fashion-mnist');
    out = fresh('out');
    expect((await lantern('pack', FASHION, '--key', key, '--out', out)).code).toBe(0);
  });

  it('refuses a folder without a catalog and a folder that does not exist, and an expiry in the past', async () => {
    const empty = fresh('empty');
    await mkdir(empty);
    expect(await lantern('catalog', empty, '--key', key)).toEqual({ code: 1, stdout: '', stderr: `lantern-model: ${empty} has no catalog.json to re-sign: model:pack creates it with the first release.\n` });
    expect(existsSync(join(empty, 'catalog.json'))).toBe(false);
    const missing = join(work, 'no-such-releases');
    expect((await lantern('catalog', missing, '--key', key)).stderr).toBe(`lantern-model: ${missing} does not exist: check the path (files are written only into folders that exist).\n`);
    expect((await lantern('catalog', out, '--key', key, '--expires', '2020-01-01')).code).toBe(2);
    expect((await lantern('catalog', out, '--key', key, '--expires', '9999-12-31')).code).toBe(2);
  });

  it('refuses to switch the catalog to another key alone; both keys (a rotation) or --replace-signer re-sign it', async () => {
    const [oldKey, newKey] = [await readKey(key), await readKey(await keygen('--scope', 'fashion-mnist'))];
    const newPath = fresh('new.json');
    await writeFile(newPath, JSON.stringify(newKey), { mode: 0o600 });
    const refused = await lantern('catalog', out, '--key', newPath);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(`lantern-model: ${join(out, 'catalog.json')} is signed by ${oldKey.keyId}, not by ${newKey.keyId}, and devices that accepted it refuse a catalog from its URL signed only by another key: sign with both keys (--key old.json --key new.json) while devices move over, or hand the URL to the new key with model:catalog --replace-signer.\n`);
    expect(await signers(out)).toEqual([oldKey.keyId]);
    expect((await lantern('catalog', out, '--key', newPath, '--key', key)).code).toBe(0);
    expect(await signers(out)).toEqual([newKey.keyId, oldKey.keyId]);
    expect((await lantern('catalog', out, '--key', newPath)).code).toBe(0);
    expect(await signers(out)).toEqual([newKey.keyId]);
    const other = await keygen('--scope', 'fashion-mnist');
    expect((await lantern('catalog', out, '--key', other, '--replace-signer')).code).toBe(0);
    expect(await signers(out)).toEqual([(await readKey(other)).keyId]);
  });
});

describe('sign: a second key countersigns', () => {
  let first: string;
  let second: string;
  /** A deployment that asks both keys to sign fashion-mnist. */
  let bothKeys: TrustStore;
  /** The keys a deployment asking for both accepts on these bytes and signatures (a SignatureError when it refuses). */
  const vouchedBy = async (bytes: Uint8Array, signatures: SignatureFile) => bothKeys.authorize(await bothKeys.signers(bytes, signatures), ['fashion-mnist']);
  const signatureFile = async (path: string) => parseSignatureFile(await readFile(path));

  beforeAll(async () => {
    [first, second] = [await keygen('--scope', 'fashion-mnist'), await keygen('--scope', 'fashion-mnist')];
    const [a, b] = [await readKey(first), await readKey(second)];
    bothKeys = new TrustStore({ keys: [trustEntryFor(a, ['fashion-mnist']), trustEntryFor(b, ['fashion-mnist'])], thresholds: [{ scope: ['fashion-mnist'], signatures: 2 }] });
  });

  it('adds its signature to the catalog and every release of a folder, once, so a two-key threshold accepts them', async () => {
    const out = fresh('out');
    expect((await lantern('pack', FASHION, '--key', first, '--out', out)).code).toBe(0);
    const manifestPath = join(out, 'fashion-mnist/1.0.0/manifest.json');
    const manifest = await readFile(manifestPath);
    await expect(vouchedBy(manifest, await signatureFile(join(out, 'fashion-mnist/1.0.0/manifest.sig.json')))).rejects.toThrow(/needs signatures from 2 different trusted keys, and this has 1/);
    const signed = await lantern('sign', out, '--key', second);
    expect(signed.code).toBe(0);
    expect(signed.stdout).toMatch(new RegExp(`^Signed ${out}/catalog.json and 1 release with ${(await readKey(second)).keyId}:\n  fashion-mnist 1.0.0 \\(sequence \\d+, manifest sha256 [0-9a-f]{64}\\)\n$`));
    const [a, b] = [(await readKey(first)).keyId, (await readKey(second)).keyId];
    expect(await vouchedBy(manifest, await signatureFile(join(out, 'fashion-mnist/1.0.0/manifest.sig.json')))).toEqual([a, b]);
    const catalog = await readFile(join(out, 'catalog.json'));
    expect(bothKeys.authorize(await bothKeys.signers(catalog, await signatureFile(join(out, 'catalog.sig.json'))), parseCatalog(catalog).releases.map((r) => r.id))).toEqual([a, b]);
    // Signing again adds nothing; the signed bytes never changed.
    expect((await lantern('sign', out, '--key', second)).code).toBe(0);
    expect((await signatureFile(join(out, 'catalog.sig.json'))).signatures.map((s) => s.keyId)).toEqual([a, b]);
    expect(await readFile(manifestPath)).toEqual(manifest);
    // Two keys in one run (one holder of two keys) sign in turn; a key that signed already adds nothing.
    const third = await keygen('--scope', 'fashion-mnist');
    expect((await lantern('sign', out, '--key', second, '--key', third)).code).toBe(0);
    const c = (await readKey(third)).keyId;
    expect((await signatureFile(join(out, 'catalog.sig.json'))).signatures.map((s) => s.keyId)).toEqual([a, b, c]);
    expect((await signatureFile(join(out, 'fashion-mnist/1.0.0/manifest.sig.json'))).signatures.map((s) => s.keyId)).toEqual([a, b, c]);
  });

  it('countersigns a bundle in place, its chunks checked first', async () => {
    const bundle = join(fresh('b'), 'fashion.lantern');
    await mkdir(join(bundle, '..'));
    expect((await lantern('pack', FASHION, '--key', first, '--out', fresh('out'), '--bundle', bundle)).code).toBe(0);
    const signed = await lantern('sign', bundle, '--key', second);
    expect(signed.code).toBe(0);
    expect(signed.stdout).toMatch(new RegExp(`^Signed ${bundle} with ${(await readKey(second)).keyId}: fashion-mnist 1.0.0 `));
    const opened = await openBundle(new Blob([await readFile(bundle)]));
    expect(await vouchedBy(opened.manifestBytes, opened.signatures)).toHaveLength(2);
    // A byte of its last file changed: refused by the device's check, and the bundle kept as it was.
    const changed = await readFile(bundle);
    changed[changed.length - 1]! ^= 1;
    await writeFile(bundle, changed);
    const refused = await lantern('sign', bundle, '--key', await keygen('--scope', 'fashion-mnist'));
    expect([refused.code, refused.stdout]).toEqual([1, '']);
    expect(refused.stderr).toMatch(/^lantern-model: Chunk \d+ of \S+ does not match the hash in the signed manifest\.\n$/);
    expect(await readFile(bundle)).toEqual(changed);
  });

  it('refuses a key outside its scope, a catalog naming files outside the folder, and a release whose files changed after packing, signing nothing', async () => {
    const out = fresh('out');
    expect((await lantern('pack', FASHION, '--key', first, '--out', out)).code).toBe(0);
    const signatures = join(out, 'fashion-mnist/1.0.0/manifest.sig.json');
    const before = await readFile(signatures);
    const outsider = await keygen('--scope', 'acme/');
    const outside = await lantern('sign', out, '--key', outsider);
    expect(outside.code).toBe(1);
    expect(outside.stderr).toMatch(new RegExp(`^lantern-model: ${outsider} may sign only acme/, so the app would refuse fashion-mnist`));
    // With a key that may sign beside it, still nothing is signed: every key signs, or none does.
    const mixed = await lantern('sign', out, '--key', second, '--key', outsider);
    expect([mixed.code, mixed.stdout]).toEqual([1, '']);
    expect(await readFile(signatures)).toEqual(before);
    const manifest = JSON.parse(await readFile(join(out, 'fashion-mnist/1.0.0/manifest.json'), 'utf8')) as { files: { role: string; path: string }[] };
    const onnx = join(out, 'fashion-mnist/1.0.0', manifest.files.find((f) => f.role === 'onnx')!.path);
    // A catalog naming a file outside the folder (one handed to the reviewer by someone else).
    const catalogPath = join(out, 'catalog.json');
    const original = await readFile(catalogPath, 'utf8');
    const outsidePath = join(out, '..', `${n++}-escape.sig.json`);
    await writeFile(outsidePath, await readFile(signatures));
    await writeFile(catalogPath, original.replace('"fashion-mnist/1.0.0/manifest.sig.json"', `"../${outsidePath.split('/').pop()}"`));
    expect((await lantern('sign', out, '--key', second)).stderr).toBe(`lantern-model: ${catalogPath} lists ../${outsidePath.split('/').pop()}, outside ${out}: nothing was signed.\n`);
    expect(await readFile(outsidePath)).toEqual(before);
    await writeFile(catalogPath, original);
    // Files changed after packing, checked as a device checks them: a byte added at the end (no
    // chunk covers it, the size tells), then a byte changed in place.
    const packed = await readFile(onnx);
    await writeFile(onnx, Buffer.concat([packed, Buffer.from([0])]));
    expect(await lantern('sign', out, '--key', second)).toEqual({ code: 1, stdout: '', stderr: `lantern-model: fashion-mnist 1.0.0 is not what was packed (${onnx} has ${packed.length + 1} bytes, and its signed manifest says ${packed.length}: devices would refuse it); nothing was signed.\n` });
    const flipped = Buffer.from(packed);
    flipped[100]! ^= 1;
    await writeFile(onnx, flipped);
    const onnxPath = manifest.files.find((f) => f.role === 'onnx')!.path;
    expect(await lantern('sign', out, '--key', second)).toEqual({ code: 1, stdout: '', stderr: `lantern-model: fashion-mnist 1.0.0 is not what was packed (Chunk 1 of ${onnxPath} does not match the hash in the signed manifest); nothing was signed.\n` });
    expect(await readFile(signatures)).toEqual(before);
  });
});

describe('verify: what a device trusting a trust store would take', () => {
  let first: string;
  let second: string;
  /** A trust store file naming `keys` (key file paths) with `scope` each, and `thresholds`. */
  const trustFile = async (keys: { path: string; scope: string[] }[], thresholds?: TrustStoreFile['thresholds']) => {
    const path = fresh('trust-store.json');
    const entries = await Promise.all(keys.map(async ({ path: keyPath, scope }) => trustEntryFor(await readKey(keyPath), scope)));
    await writeFile(path, JSON.stringify({ version: 1, keys: entries, ...(thresholds ? { thresholds } : {}) }));
    return path;
  };
  const keyId = async (path: string) => (await readKey(path)).keyId;

  beforeAll(async () => {
    [first, second] = [await keygen('--scope', 'fashion-mnist'), await keygen('--scope', 'fashion-mnist')];
  });

  it('accepts a folder a one-key trust store trusts; under a two-key threshold refuses it with the device\'s sentence until the second key signs', async () => {
    const out = fresh('out');
    expect((await lantern('pack', FASHION, '--key', first, '--out', out)).code).toBe(0);
    const oneKey = await trustFile([{ path: first, scope: ['fashion-mnist'] }]);
    const accepted = await lantern('verify', out, '--trust', oneKey);
    expect([accepted.code, accepted.stderr]).toEqual([0, '']);
    const a = `Lantern publisher \\(${await keyId(first)}\\)`;
    expect(accepted.stdout).toMatch(new RegExp(`^${out}, as a device trusting ${oneKey} would take it:\n  accepted  catalog.json: version \\d+, 1 release, valid until \\d{4}-\\d\\d-\\d\\d; signed by ${a}\n  accepted  fashion-mnist 1.0.0: signed by ${a}; 3 files, \\d+\\.\\d KB, every chunk as its manifest says\n$`));

    const bothKeys = await trustFile([{ path: first, scope: ['fashion-mnist'] }, { path: second, scope: ['fashion-mnist'] }], [{ scope: ['fashion-mnist'], signatures: 2 }]);
    const refused = await lantern('verify', out, '--trust', bothKeys);
    const lacking = 'fashion-mnist needs signatures from 2 different trusted keys, and this has 1 (Lantern publisher); it was refused.';
    expect(refused).toEqual({ code: 1, stdout: `${out}, as a device trusting ${bothKeys} would take it:\n  REFUSED   catalog.json: ${lacking}\n  REFUSED   fashion-mnist 1.0.0: ${lacking}\n`, stderr: 'lantern-model: devices would refuse 2 of 2: fix them before publishing (what lacks signatures: have another trusted key run model:sign on it).\n' });
    expect((await lantern('sign', out, '--key', second)).code).toBe(0);
    const countersigned = await lantern('verify', out, '--trust', bothKeys);
    expect(countersigned.code).toBe(0);
    expect(countersigned.stdout).toContain(`  accepted  fashion-mnist 1.0.0: signed by Lantern publisher (${await keyId(first)}), Lantern publisher (${await keyId(second)}); 3 files`);
  });

  it('checks a bundle: refused for a key signing outside its scope, accepted where its scope covers the model', async () => {
    const bundle = join(fresh('b'), 'fashion.lantern');
    await mkdir(join(bundle, '..'));
    expect((await lantern('pack', FASHION, '--key', first, '--out', fresh('out'), '--bundle', bundle)).code).toBe(0);
    const elsewhere = await trustFile([{ path: first, scope: ['acme/'] }]);
    expect(await lantern('verify', bundle, '--trust', elsewhere)).toEqual({
      code: 1,
      stdout: `${bundle}, as a device trusting ${elsewhere} would take it:\n  REFUSED   ${bundle}: Key ${await keyId(first)} (Lantern publisher) is not trusted to sign fashion-mnist; it was refused.\n`,
      stderr: 'lantern-model: devices would refuse 1 of 1: fix it before publishing.\n',
    });
    const covered = await lantern('verify', bundle, '--trust', await trustFile([{ path: first, scope: ['fashion-mnist'] }]));
    expect(covered.code).toBe(0);
    expect(covered.stdout).toContain(`  accepted  ${bundle}: fashion-mnist 1.0.0 (sequence `);
  });

  it('refuses a release whose file changed after packing, or is missing, and still checks the releases of a catalog that is not signed', async () => {
    const out = fresh('out');
    expect((await lantern('pack', FASHION, '--key', first, '--out', out)).code).toBe(0);
    const trust = await trustFile([{ path: first, scope: ['fashion-mnist'] }]);
    const manifest = JSON.parse(await readFile(join(out, 'fashion-mnist/1.0.0/manifest.json'), 'utf8')) as { files: { role: string; path: string }[] };
    const onnxPath = manifest.files.find((f) => f.role === 'onnx')!.path;
    const onnx = join(out, 'fashion-mnist/1.0.0', onnxPath);
    const original = await readFile(onnx);
    original[100]! ^= 1;
    await writeFile(onnx, original);
    await rm(join(out, 'catalog.sig.json'));
    const changed = await lantern('verify', out, '--trust', trust);
    expect(changed.code).toBe(1);
    expect(changed.stdout.split('\n').slice(1)).toEqual([
      '  REFUSED   catalog.json: The model catalog is not signed (no catalog.sig.json).',
      `  REFUSED   fashion-mnist 1.0.0: Chunk 1 of ${onnxPath} does not match the hash in the signed manifest.`,
      '',
    ]);
    // A byte added at the end: no chunk covers it, but a device refuses a file of the wrong size.
    original[100]! ^= 1;
    await writeFile(onnx, Buffer.concat([original, Buffer.from([0])]));
    expect((await lantern('verify', out, '--trust', trust)).stdout).toContain(`  REFUSED   fashion-mnist 1.0.0: ${onnx} has ${original.length + 1} bytes, and its signed manifest says ${original.length}: devices would refuse it.\n`);
    await rm(onnx);
    expect((await lantern('verify', out, '--trust', trust)).stdout).toContain(`  REFUSED   fashion-mnist 1.0.0: ${onnx} is missing: devices would fail to download it.\n`);
  });

  it('shows a catalog no set of keys can make acceptable: its signer\'s wide scope falls under a threshold the other keys cannot sign for', async () => {
    // The first key may sign fashion-mnist and acme/; acme/ asks for two keys, and the only other
    // key may sign acme/ alone: a catalog listing fashion-mnist needs two keys that may sign it.
    const out = fresh('out');
    expect((await lantern('pack', FASHION, '--key', first, '--out', out)).code).toBe(0);
    const acme = await keygen('--scope', 'acme/');
    const trust = await trustFile([{ path: first, scope: ['fashion-mnist', 'acme/'] }, { path: acme, scope: ['acme/'] }], [{ scope: ['acme/'], signatures: 2 }]);
    const verified = await lantern('verify', out, '--trust', trust);
    expect(verified.code).toBe(1);
    expect(verified.stdout).toContain('  REFUSED   catalog.json: acme/ needs signatures from 2 different trusted keys, and this has 1 (Lantern publisher); it was refused.\n');
    expect(verified.stdout).toMatch(/\n {2}accepted {2}fashion-mnist 1\.0\.0: /);
  });

  it('warns of a threshold the trust store\'s keys cannot reach, and refuses a missing --trust or one that is not a trust store', async () => {
    const out = fresh('out');
    expect((await lantern('pack', FASHION, '--key', first, '--out', out)).code).toBe(0);
    const unreachable = await trustFile([{ path: first, scope: ['fashion-mnist'] }], [{ scope: ['fashion-mnist'], signatures: 2 }]);
    expect((await lantern('verify', out, '--trust', unreachable)).stderr).toBe('Warning: fashion-mnist needs 2 signatures from different keys, but only 1 key may sign all of it, so devices install nothing there.\nlantern-model: devices would refuse 2 of 2: fix them before publishing (what lacks signatures: have another trusted key run model:sign on it).\n');
    expect((await lantern('verify', out)).code).toBe(2);
    const broken = fresh('trust-store.json');
    await writeFile(broken, '{"keys": "none"}');
    const refused = await lantern('verify', out, '--trust', broken);
    expect([refused.code, refused.stdout]).toEqual([1, '']);
    // Says what a trust store looks like, as the build does for LANTERN_TRUSTED_KEYS (the same reader).
    expect(refused.stderr).toMatch(new RegExp(`^lantern-model: ${broken} is not a trust store, \\{"keys": \\[entry, …\\]\\}, nor one entry as model:keygen prints it, each with keyId, publicKey, name and a non-empty scope \\(it is not valid at "keys": .+\\)\\.\n$`));
    // The entry model:keygen prints, saved as it is, is a one-key trust store here as in the build.
    const entry = fresh('entry.json');
    await writeFile(entry, JSON.stringify(trustEntryFor(await readKey(first), ['fashion-mnist'])));
    const one = await lantern('verify', out, '--trust', entry);
    expect([one.code, one.stdout.split('\n')[1]]).toEqual([0, expect.stringMatching(/^ {2}accepted {2}catalog/)]);
    const absent = fresh('absent.json');
    expect((await lantern('verify', out, '--trust', absent)).stderr).toBe(`lantern-model: ${absent} does not exist: check the path (files are written only into folders that exist).\n`);
  });
});

describe('withdraw: a publisher takes a release back', () => {
  let key: string;
  let out: string;
  const catalogOf = async (dir: string) => parseCatalog(await readFile(join(dir, 'catalog.json')));

  beforeAll(async () => {
    key = await keygen('--scope', 'fashion-mnist');
    out = fresh('out');
    expect((await lantern('pack', FASHION, '--key', key, '--out', out)).code).toBe(0);
  });

  it('marks the release withdrawn with its reason in a newer catalog, signed, that devices accept', async () => {
    const before = await catalogOf(out);
    const done = await lantern('withdraw', out, '--id', 'fashion-mnist', '--version', '1.0.0', '--reason', ' calls every shoe a sandal ', '--key', key);
    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(/^Withdrew fashion-mnist 1\.0\.0 in .*catalog\.json\. Devices that fetch it stop using it/);
    const after = await catalogOf(out);
    expect(after.version).toBeGreaterThan(before.version);
    expect(after.releases).toEqual([{ ...before.releases[0], withdrawn: 'calls every shoe a sandal' }]);
    const trust = fresh('trust-store.json');
    await writeFile(trust, JSON.stringify({ keys: [trustEntryFor(await readKey(key), ['fashion-mnist'])] }));
    const verified = await lantern('verify', out, '--trust', trust);
    expect(verified.code).toBe(0);
    expect(verified.stdout).toContain('  accepted  fashion-mnist 1.0.0 (withdrawn: "calls every shoe a sandal"): signed by');
    // Run again, it says the release was withdrawn already and what that changes.
    const again = await lantern('withdraw', out, '--id', 'fashion-mnist', '--version', '1.0.0', '--reason', 'mislabels sandals', '--key', key);
    expect(again.stdout).toBe(`fashion-mnist 1.0.0 was withdrawn already ("calls every shoe a sandal"): ${out}/catalog.json now gives the reason "mislabels sandals". Devices that applied the withdrawal keep the reason they were given.\n`);
    expect((await catalogOf(out)).releases[0]?.withdrawn).toBe('mislabels sandals');
  });

  it('refuses a release the catalog does not list, naming what it lists, and a missing or overlong reason; the catalog is unchanged', async () => {
    const catalogPath = join(out, 'catalog.json');
    const before = await readFile(catalogPath);
    expect(await lantern('withdraw', out, '--id', 'fashion-mnist', '--version', '9.9.9', '--reason', 'x', '--key', key)).toEqual({
      code: 1, stdout: '', stderr: `lantern-model: ${catalogPath} does not list fashion-mnist 9.9.9 (it lists fashion-mnist 1.0.0): name a release it lists.\n`,
    });
    expect((await lantern('withdraw', out, '--id', 'fashion-mnist', '--version', '1.0.0', '--key', key)).code).toBe(2);
    expect((await lantern('withdraw', out, '--id', 'fashion-mnist', '--version', '1.0.0', '--reason', '  ', '--key', key)).code).toBe(2);
    expect((await lantern('withdraw', out, '--id', 'fashion-mnist', '--version', '1.0.0', '--reason', 'x'.repeat(301), '--key', key)).code).toBe(2);
    expect(await readFile(catalogPath)).toEqual(before);
  });
});

describe('no command signs a catalog.json changed since it was signed', () => {
  it('keeps a withdrawal: with it edited out, catalog, withdraw, pack and sign refuse and write nothing; the signed copy restored, they sign again', async () => {
    const key = await keygen('--scope', 'fashion-mnist');
    const out = fresh('out');
    expect((await lantern('pack', FASHION, '--key', key, '--out', out)).code).toBe(0);
    expect((await lantern('withdraw', out, '--id', 'fashion-mnist', '--version', '1.0.0', '--reason', 'calls every shoe a sandal', '--key', key)).code).toBe(0);
    const catalogPath = join(out, 'catalog.json');
    const signed = await readFile(catalogPath);
    const edited = signed.toString().replace(/,\s*"withdrawn":\s*"calls every shoe a sandal"/, '');
    expect(edited).not.toBe(signed.toString());
    await writeFile(catalogPath, edited);
    const signature = await readFile(join(out, 'catalog.sig.json'));
    const { keyId } = await readKey(key);
    const refusal = `lantern-model: ${catalogPath} was changed after ${keyId} signed it, so nothing was signed: signing it again would publish the change unreviewed (a withdrawal dropped, a sequence moved). Restore the signed copy; change a release's rollout with model:catalog --id --version --rollout, withdraw one with model:withdraw.\n`;
    const hub = await hubFashion();
    for (const args of [
      ['catalog', out, '--key', key],
      ['catalog', out, '--key', key, '--id', 'fashion-mnist', '--version', '1.0.0', '--rollout', '0.5'],
      ['withdraw', out, '--id', 'fashion-mnist', '--version', '1.0.0', '--reason', 'x', '--key', key],
      ['pack', hub, '--id', 'fashion-mnist', '--version', '1.1.0', '--key', key, '--out', out],
      ['sign', out, '--key', key],
    ]) {
      const { code, stderr } = await lantern(...args);
      expect({ code, stderr }, args[0]).toEqual({ code: 1, stderr: refusal });
    }
    expect((await readFile(catalogPath)).toString()).toBe(edited);
    expect(await readFile(join(out, 'catalog.sig.json'))).toEqual(signature);
    expect(existsSync(join(out, 'fashion-mnist', '1.1.0'))).toBe(false);
    await writeFile(catalogPath, signed);
    expect((await lantern('catalog', out, '--key', key)).code).toBe(0);
    expect(parseCatalog(await readFile(catalogPath)).releases[0]?.withdrawn).toBe('calls every shoe a sandal');
  });
});

describe('catalog --rollout: a staged rollout raised, lowered or halted', () => {
  it('changes only that release\'s fraction in a newer catalog devices accept, and refuses an incomplete or out-of-range request', async () => {
    const key = await keygen('--scope', 'fashion-mnist');
    const out = fresh('out');
    expect((await lantern('pack', FASHION, '--key', key, '--out', out, '--rollout', '0.1')).code).toBe(0);
    const catalogPath = join(out, 'catalog.json');
    const before = parseCatalog(await readFile(catalogPath));
    expect(before.releases[0]?.rollout).toBe(0.1);
    const raised = await lantern('catalog', out, '--key', key, '--id', 'fashion-mnist', '--version', '1.0.0', '--rollout', '0.5');
    expect(raised).toEqual({ code: 0, stderr: '', stdout: `Re-signed ${out}/catalog.json: fashion-mnist 1.0.0 is rolled out to 50% of devices (it was 10%). Devices read it at their next update check; one that installed it keeps it.\n` });
    const after = parseCatalog(await readFile(catalogPath));
    expect(after.version).toBeGreaterThan(before.version);
    expect(after.releases).toEqual([{ ...before.releases[0], rollout: 0.5 }]);
    const trust = fresh('trust-store.json');
    await writeFile(trust, JSON.stringify({ keys: [trustEntryFor(await readKey(key), ['fashion-mnist'])] }));
    expect((await lantern('verify', out, '--trust', trust)).code).toBe(0);
    expect((await lantern('catalog', out, '--key', key, '--id', 'fashion-mnist', '--version', '1.0.0', '--rollout', '0.07')).stdout).toContain('is rolled out to 7% of devices (it was 50%)');
    expect((await lantern('catalog', out, '--key', key, '--id', 'fashion-mnist', '--version', '1.0.0', '--rollout', '0')).code).toBe(0);
    expect(parseCatalog(await readFile(catalogPath)).releases[0]?.rollout).toBe(0);

    const unchanged = await readFile(catalogPath);
    expect((await lantern('catalog', out, '--key', key, '--id', 'fashion-mnist', '--rollout', '0.5')).code).toBe(2);
    expect((await lantern('catalog', out, '--key', key, '--id', 'fashion-mnist', '--version', '1.0.0', '--rollout', '1.5')).code).toBe(2);
    expect((await lantern('catalog', out, '--key', key, '--id', 'fashion-mnist', '--version', '1.0.0', '--rollout', '0.5', '--replace-signer')).code).toBe(2);
    expect((await lantern('catalog', out, '--key', key, '--id', 'fashion-mnist', '--version', '9.9.9', '--rollout', '0.5')).stderr)
      .toBe(`lantern-model: ${catalogPath} does not list fashion-mnist 9.9.9 (it lists fashion-mnist 1.0.0): name a release it lists.\n`);
    expect(await readFile(catalogPath)).toEqual(unchanged);
  });
});
