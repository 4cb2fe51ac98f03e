#!/usr/bin/env tsx
/**
 * Publisher CLI for signed model releases (usage below; `npm run model:keygen` / `model:pack` /
 * `model:catalog` / `model:sign` / `model:withdraw` / `model:verify` in a clone of this repository). The folder may be a Hugging Face transformers.js folder (its
 * "lantern" block is derived from the graph). Missing values are asked for when stdin is a
 * terminal, otherwise they are errors. Keys stay with the publisher: never commit them.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { ValidationError } from '../src/runtime/errors.ts';
import { MAX_WITHDRAWAL_REASON } from '../src/runtime/schema-limits.ts';
import { MAX_CATALOG_VALIDITY_DAYS } from '../src/runtime/store/catalog.ts';
import { validForAtMost } from '../src/runtime/store/expiry.ts';
import { MAX_RELEASE_VALIDITY_DAYS } from '../src/runtime/store/manifest.ts';
import { ScopeEntry, TrustStore, trustEntryFor, unreachableThresholds } from '../src/runtime/store/trust.ts';
import { describeGraph } from './model-pack/onnx-graph.ts';
import { readModelSource, type Ask } from './model-pack/source.ts';
import { readGoldenSet } from './model-pack/golden.ts';
import { checkScope, readPublisherKey, readTrustStoreFile, writePublisherKey } from './model-pack/keys.ts';
import { verifyBundle, verifyFolder } from './model-pack/verify.ts';
import { bundleOf, countersignBundle, countersignFolder, packRelease, readPublishedCatalog, resignCatalog, setRollout, withdrawRelease, writeRelease, type Countersigned } from './model-pack/release.ts';
import { fractionOption, integerOption, isEntryPoint, parseCommandLine, resolvePathsFromWhereTyped, runCli, UsageError } from './cli.mjs';

export const USAGE = `Usage:
  lantern-model keygen --out key.json [--name "Publisher"] [--scope acme/,other-id]
  lantern-model pack <model folder | model.onnx> --key key.json [--key old.json] --out <dir>
      [--sequence N] [--chunk-size BYTES] [--expires ISO-DATE] [--catalog-expires ISO-DATE]
      [--bundle file.lantern]
      [--golden golden.json]   validation set run on the device before activation
      [--shadow-runs N [--shadow-agreement 0.95]]   install in shadow; promote automatically at that bar
      [--rollout 0.1]          staged rollout: the fraction of devices that install it automatically
      [--id ID] [--version X.Y.Z] [--title T] [--output logits|probabilities]
      bare .onnx only: --labels labels.json|labels.txt [--size 224]
      [--resize stretch|shortest_edge:256] [--crop 224] --mean 0.485,0.456,0.406 --std 0.229,0.224,0.225
  lantern-model catalog <dir> --key key.json [--expires ISO-DATE]   re-sign the catalog before it expires
      [--replace-signer]       hand the catalog's URL to another key (devices that follow the old one refuse it)
      [--id ID --version X.Y.Z --rollout 0.5]   change a release's staged rollout (raise it, or 0 to halt it)
  lantern-model sign <dir | file.lantern> --key key.json [--key …]   countersign: add these keys' signatures to the
      catalog and every release in the folder, or to the bundle (a trust store threshold asks for it)
  lantern-model withdraw <dir> --id ID --version X.Y.Z --reason "why" --key key.json [--expires ISO-DATE]
      take a release back: devices stop using it where another version can answer, and never install it again
  lantern-model verify <dir | file.lantern> --trust trust-store.json   check, as a device trusting
      that trust store would, the catalog and every release of a folder, or a bundle, before publishing
  lantern-model --help | --version

pack writes <dir>/<id>/<version>/... and adds the release to <dir>/catalog.json, signed
(catalog.sig.json); --bundle also writes a sideload bundle. No command signs a catalog.json
changed since its signer signed it: change it through these commands. sign checks every file against its
manifest before it signs, and changes only the signature files (or the bundle's header). verify runs the
device's own checks (signatures, scopes, thresholds, expiry, every chunk) and exits 1 if a device
would refuse anything; what a device remembers (the versions it accepted before) is not checked. Releases expire after a year and
catalogs after 30 days unless told otherwise: expiry stops new installs and updates, never an
installed model. In this repository: npm run model:keygen -- ..., npm run model:pack -- ...,
npm run model:catalog -- ..., npm run model:sign -- ..., npm run model:withdraw -- ..., npm run model:verify -- ... Exit codes: 0 done, 1 failed, 2 usage error.`;

async function keygen(args: string[]): Promise<void> {
  const { values } = parseCommandLine({ args, options: { out: { type: 'string' }, name: { type: 'string', default: 'Lantern publisher' }, scope: { type: 'string' } } });
  if (!values.out) throw new UsageError('keygen needs --out <file>.');
  // The scope is the deployment's decision (which model ids this key may sign); --scope pre-fills
  // the printed entry and is recorded in the key file, so that pack can refuse ids outside it.
  const scope = values.scope?.split(',').map((s) => s.trim()).filter(Boolean) ?? [];
  const badScope = scope.find((s) => !ScopeEntry.safeParse(s).success);
  if (badScope !== undefined) throw new UsageError(`--scope entry "${badScope}" is not a model id or a namespace ending in /.`);
  const key = await writePublisherKey(values.out, values.name, scope);
  console.log(`Wrote ${values.out}. Add this entry to the app's trust store${scope.length ? '' : ', with the model ids (or namespaces ending in /) it may sign in "scope"'} (editing a deployed trust-store.json, raise its "version": devices refuse a changed file at the same version):\n${JSON.stringify(trustEntryFor(key, scope), null, 1)}`);
}

const readKeys = (paths: readonly string[]) => Promise.all(paths.map(readPublisherKey));

/**
 * An expiry date for what is signed now: in the future (a release or catalog expiring in the past
 * would be refused by every device), and no further than devices accept (`maxDays`).
 */
function futureDate(value: string, flag: string, maxDays: number): string {
  const time = Date.parse(value);
  if (Number.isNaN(time)) throw new UsageError(`${flag} must be a date such as 2027-06-30.`);
  if (time <= Date.now()) throw new UsageError(`${flag} ${value} is in the past: what it signs would be expired already; give a later date.`);
  const iso = new Date(time).toISOString();
  if (!validForAtMost(new Date().toISOString(), iso, maxDays)) throw new UsageError(`${flag} ${value} is more than ${maxDays} days away: devices refuse what stays valid that long (a mirror could offer it forever); give an earlier date.`);
  return iso;
}

/** Re-signs a release folder's catalog with a new version and expiry, and a release's rollout changed if asked. */
async function catalog(args: string[]): Promise<void> {
  const { values, positionals } = parseCommandLine({ args, allowPositionals: true, options: { key: { type: 'string', multiple: true }, expires: { type: 'string' }, 'replace-signer': { type: 'boolean' }, id: { type: 'string' }, version: { type: 'string' }, rollout: { type: 'string' } } });
  const [dir] = positionals;
  if (!dir || !values.key?.length) throw new UsageError('catalog needs a releases folder and --key <key.json>.');
  const release = [values.id, values.version, values.rollout];
  if (release.some((v) => v !== undefined) && release.some((v) => v === undefined)) throw new UsageError('--id, --version and --rollout go together: the release whose rollout changes, and the fraction of devices.');
  const rollout = values.rollout === undefined ? undefined : fractionOption('rollout', values.rollout);
  if (rollout !== undefined && values['replace-signer']) throw new UsageError('--replace-signer hands the catalog to another key on its own: change the rollout in a call before or after it.');
  const expiresAt = values.expires === undefined ? undefined : futureDate(values.expires, '--expires', MAX_CATALOG_VALIDITY_DAYS);
  if (!(await stat(dir)).isDirectory()) throw new ValidationError(`${dir} is not a folder: name the releases folder model:pack wrote.`);
  const existing = await readPublishedCatalog(dir);
  if (!existing) throw new ValidationError(`${dir} has no catalog.json to re-sign: model:pack creates it with the first release.`);
  const keys = await readKeys(values.key);
  checkScope(keys, existing.catalog.releases.map((r) => r.id));
  const options = { keys: keys.map((k) => k.key), ...(expiresAt ? { expiresAt } : {}) };
  if (values.id && values.version && rollout !== undefined) {
    const before = (await setRollout(dir, existing, { id: values.id, version: values.version, rollout }, options)).rollout;
    // 0.07 × 100 is 7.000000000000001 in floating point: a share of devices to two decimals.
    const percent = (fraction: number) => `${Number((fraction * 100).toFixed(2))}%`;
    console.log(`Re-signed ${dir}/catalog.json: ${values.id} ${values.version} is rolled out to ${percent(rollout)} of devices (it was ${before === undefined ? 'not rolled out: installed only by hand' : percent(before)}). Devices read it at their next update check; one that installed it keeps it.`);
    return;
  }
  await resignCatalog(dir, existing, { ...options, replaceSigner: values['replace-signer'] === true });
  console.log(`Re-signed ${dir}/catalog.json.`);
}

/**
 * Withdraws a release through the folder's catalog (re-signed at a new version): for a release
 * found wrong after it shipped. Devices that fetch the catalog hand over to the version before
 * it (the only version a device has keeps answering, marked withdrawn) and never install it again.
 */
async function withdraw(args: string[]): Promise<void> {
  const { values, positionals } = parseCommandLine({ args, allowPositionals: true, options: { key: { type: 'string', multiple: true }, id: { type: 'string' }, version: { type: 'string' }, reason: { type: 'string' }, expires: { type: 'string' } } });
  const [dir] = positionals;
  if (!dir || !values.key?.length || !values.id || !values.version || values.reason === undefined) throw new UsageError('withdraw needs a releases folder, --id, --version, --reason "why" and --key <key.json>.');
  const reason = values.reason.trim();
  if (reason.length === 0 || reason.length > MAX_WITHDRAWAL_REASON) throw new UsageError(`--reason must say why in 1 to ${MAX_WITHDRAWAL_REASON} characters: devices show it to their users.`);
  const expiresAt = values.expires === undefined ? undefined : futureDate(values.expires, '--expires', MAX_CATALOG_VALIDITY_DAYS);
  if (!(await stat(dir)).isDirectory()) throw new ValidationError(`${dir} is not a folder: name the releases folder model:pack wrote.`);
  const existing = await readPublishedCatalog(dir);
  if (!existing) throw new ValidationError(`${dir} has no catalog.json: model:pack creates it with the first release.`);
  const keys = await readKeys(values.key);
  checkScope(keys, existing.catalog.releases.map((r) => r.id));
  const before = (await withdrawRelease(dir, existing, { id: values.id, version: values.version, reason }, { keys: keys.map((k) => k.key), ...(expiresAt ? { expiresAt } : {}) })).withdrawn;
  // Withdrawn already: only the reason changes, and only for devices that have not applied it yet.
  if (before !== undefined) {
    console.log(`${values.id} ${values.version} was withdrawn already ("${before}"): ${dir}/catalog.json now gives the reason "${reason}". Devices that applied the withdrawal keep the reason they were given.`);
    return;
  }
  console.log(`Withdrew ${values.id} ${values.version} in ${dir}/catalog.json. Devices that fetch it stop using it where another version can answer, and never install it again; publish a newer release to replace it. Where the trust store asks several keys to sign, countersign the catalog (model:sign).`);
}

const describeSigned = (r: Countersigned) => `${r.id} ${r.version} (sequence ${r.sequence}, manifest sha256 ${r.sha256})`;

/**
 * Countersigns with one more key what another key packed: a folder's catalog and every release in
 * it, or a bundle. For a trust store that asks two keys to sign a scope (a threshold), so no one
 * key alone ships a model there; the second holder runs this after reviewing the release.
 */
async function sign(args: string[]): Promise<void> {
  const { values, positionals } = parseCommandLine({ args, allowPositionals: true, options: { key: { type: 'string', multiple: true } } });
  const [target] = positionals;
  if (!target || !values.key?.length) throw new UsageError('sign needs a releases folder or a .lantern bundle, and --key <key.json>.');
  // Every key given signs (a holder of two of a threshold's keys passes both), or none does.
  const publishers = await readKeys(values.key);
  const keys = publishers.map((p) => p.key);
  const by = keys.map((k) => k.keyId).join(', ');
  if ((await stat(target)).isDirectory()) {
    const existing = await readPublishedCatalog(target);
    if (!existing) throw new ValidationError(`${target} has no catalog.json to sign: model:pack creates it with the first release.`);
    checkScope(publishers, existing.catalog.releases.map((r) => r.id));
    const releases = await countersignFolder(target, keys);
    console.log(`Signed ${target}/catalog.json and ${releases.length} release${releases.length === 1 ? '' : 's'} with ${by}:\n${releases.map((r) => `  ${describeSigned(r)}`).join('\n')}`);
    return;
  }
  const { bundle, release } = await countersignBundle(await readFile(target), keys);
  checkScope(publishers, [release.id]);
  await writeFile(target, bundle);
  console.log(`Signed ${target} with ${by}: ${describeSigned(release)}.`);
}

/**
 * Says, item by item, whether devices trusting `--trust` would take a release folder or a bundle:
 * so a threshold still lacking a signature, a key signing outside its scope or a catalog about to
 * expire is found before publishing, not reported by devices in the field. Exit code 1 if any
 * item would be refused.
 */
async function verify(args: string[]): Promise<void> {
  const { values, positionals } = parseCommandLine({ args, allowPositionals: true, options: { trust: { type: 'string' } } });
  const [target] = positionals;
  if (!target || !values.trust) throw new UsageError('verify needs a releases folder or a .lantern bundle, and --trust <trust-store.json>.');
  const trust = await readTrustStore(values.trust);
  const verdicts = (await stat(target)).isDirectory() ? await verifyFolder(target, trust) : [await verifyBundle(target, await readFile(target), trust)];
  console.log(`${target}, as a device trusting ${values.trust} would take it:\n${verdicts.map((v) => `  ${v.accepted ? `accepted  ${v.what}: ${v.detail}` : `REFUSED   ${v.what}: ${v.reason}`}`).join('\n')}`);
  const refused = verdicts.filter((v) => !v.accepted);
  if (refused.length === 0) return;
  const countersign = refused.some((v) => v.lacksSignatures) ? ' (what lacks signatures: have another trusted key run model:sign on it)' : '';
  throw new ValidationError(`devices would refuse ${refused.length} of ${verdicts.length}: fix ${refused.length === 1 ? 'it' : 'them'} before publishing${countersign}.`);
}

/** A deployment's trust store file (or one keygen entry), or a sentence naming it; a threshold its keys cannot reach is said too (devices install nothing there). */
async function readTrustStore(path: string): Promise<TrustStore> {
  const file = await readTrustStoreFile(path);
  for (const problem of unreachableThresholds(file)) console.warn(`Warning: ${problem}, so devices install nothing there.`);
  return new TrustStore(file);
}

/**
 * Refuses, before anything is written, outputs that cannot be written: `--out` must be a folder
 * or not exist yet (it is created), `--bundle` must name a file in a folder that exists.
 */
async function checkOutputs(out: string, bundle: string | undefined): Promise<void> {
  const outInfo = await stat(out).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (outInfo && !outInfo.isDirectory()) throw new ValidationError(`--out ${out} is a file: name a folder (it is created if it does not exist).`);
  if (bundle === undefined) return;
  const folder = await stat(dirname(bundle)).catch(() => undefined);
  if (!folder?.isDirectory()) throw new ValidationError(`--bundle ${bundle} cannot be written: the folder ${dirname(bundle)} does not exist; create it or choose another path.`);
  if ((await stat(bundle).catch(() => undefined))?.isDirectory()) throw new ValidationError(`--bundle ${bundle} is a folder: name a file, e.g. model.lantern.`);
}

async function pack(args: string[]): Promise<void> {
  const { values, positionals } = parseCommandLine({
    args,
    allowPositionals: true,
    options: {
      key: { type: 'string', multiple: true },
      out: { type: 'string' },
      sequence: { type: 'string' },
      'chunk-size': { type: 'string' },
      expires: { type: 'string' },
      'catalog-expires': { type: 'string' },
      bundle: { type: 'string' },
      golden: { type: 'string' },
      'shadow-runs': { type: 'string' }, 'shadow-agreement': { type: 'string' }, rollout: { type: 'string' },
      id: { type: 'string' }, version: { type: 'string' }, title: { type: 'string' }, labels: { type: 'string' }, size: { type: 'string' },
      resize: { type: 'string' }, crop: { type: 'string' }, mean: { type: 'string' }, std: { type: 'string' }, output: { type: 'string' },
    },
  });
  const [folder] = positionals;
  if (!folder) throw new UsageError('pack needs a model folder or .onnx file.');
  if (!values.out || !values.key?.length) throw new UsageError('pack needs --key <key.json> and --out <dir>.');
  const sequence = values.sequence === undefined ? undefined : integerOption('sequence', values.sequence);
  const chunkSize = values['chunk-size'] === undefined ? undefined : integerOption('chunk-size', values['chunk-size'], { min: 1024 });
  const expiresAt = values.expires === undefined ? undefined : futureDate(values.expires, '--expires', MAX_RELEASE_VALIDITY_DAYS);
  const catalogExpiresAt = values['catalog-expires'] === undefined ? undefined : futureDate(values['catalog-expires'], '--catalog-expires', MAX_CATALOG_VALIDITY_DAYS);
  const shadow = values['shadow-runs'] === undefined ? undefined
    : { minRuns: integerOption('shadow-runs', values['shadow-runs'], { min: 1 }), minAgreement: fractionOption('shadow-agreement', values['shadow-agreement'] ?? '1') };
  const rollout = values.rollout === undefined ? undefined : fractionOption('rollout', values.rollout);
  const publisherKeys = await readKeys(values.key);
  const keys = publisherKeys.map((k) => k.key);
  const terminal = process.stdin.isTTY ? createInterface({ input: process.stdin, output: process.stdout }) : undefined;
  const ask: Ask | undefined = terminal && ((question) => terminal.question(question));
  const { model, graph } = await readModelSource(folder, values, ask).finally(() => terminal?.close());
  console.log(`Graph: ${describeGraph(graph)}`);
  checkScope(publisherKeys, [model.meta.id]);
  const release = await packRelease(model, {
    keys,
    ...(sequence !== undefined ? { sequence } : {}),
    ...(chunkSize !== undefined ? { chunkSize } : {}),
    ...(expiresAt ? { expiresAt } : {}),
    ...(values.golden ? { golden: await readGoldenSet(values.golden, model.meta) } : {}),
    ...(shadow ? { shadow } : {}),
    ...(rollout !== undefined ? { rollout } : {}),
  });
  await checkOutputs(values.out, values.bundle);
  await writeRelease(values.out, release, { keys, ...(catalogExpiresAt ? { expiresAt: catalogExpiresAt } : {}) });
  if (values.bundle) await writeFile(values.bundle, bundleOf(release));
  console.log(`Packed ${release.manifest.id} ${release.manifest.version} (sequence ${release.manifest.sequence}) into ${values.out}${values.bundle ? ` and ${values.bundle}` : ''}.`);
}

const commands: Record<string, (args: string[]) => Promise<void>> = { keygen, pack, catalog, sign, withdraw, verify };

export async function modelCli(args: string[]): Promise<void> {
  const [command, ...rest] = args;
  const run = command !== undefined && Object.hasOwn(commands, command) ? commands[command] : undefined;
  if (!run) throw new UsageError(command === undefined ? 'a command is needed: keygen, pack, catalog, sign, withdraw or verify.' : `unknown command "${command}": use keygen, pack, catalog, sign, withdraw or verify.`);
  await run(rest);
}

if (isEntryPoint(import.meta.url)) {
  resolvePathsFromWhereTyped();
  void runCli({ name: 'lantern-model', usage: USAGE }, process.argv.slice(2), modelCli);
}
