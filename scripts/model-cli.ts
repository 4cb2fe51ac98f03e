/**
 * Publisher CLI for signed model releases.
 *   npm run model:keygen -- --out key.json [--name "Publisher"]
 *   npm run model:pack -- <model folder | model.onnx> --key key.json [--key old.json] --out <dir>
 *       [--sequence N] [--chunk-size BYTES] [--expires ISO-DATE] [--bundle file.lantern]
 *       [--golden golden.json]  (validation set run on the device before activation; model-pack/golden.ts)
 *       [--shadow-runs N --shadow-agreement 0.95]  (install in shadow; promote automatically at that bar)
 *       [--rollout 0.1]  (staged rollout: the catalog entry reaches this fraction of devices)
 *       [--id ID] [--version X.Y.Z] [--title T] [--output logits|probabilities]
 *       bare .onnx only: --labels labels.json|labels.txt [--size 224] [--resize stretch|shortest_edge:256]
 *       [--crop 224] --mean 0.485,0.456,0.406 --std 0.229,0.224,0.225
 * The folder may be a Hugging Face transformers.js folder (its "lantern" block is derived from the
 * graph). Missing values are asked for when stdin is a terminal, otherwise they are errors.
 * Keys stay with the publisher: never commit them. `pack` writes <dir>/<id>/<version>/...
 * and adds the release to <dir>/catalog.json; `--bundle` also writes a sideload bundle.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { LanternError, ValidationError } from '../src/runtime/errors.ts';
import { generateKey, parseKeyFile, trustEntryFor } from '../src/runtime/store/trust.ts';
import { describeGraph } from './model-pack/onnx-graph.ts';
import { readModelSource, type Ask } from './model-pack/source.ts';
import { readGoldenSet } from './model-pack/golden.ts';
import { bundleOf, packRelease, writeRelease } from './model-pack/release.ts';

async function keygen(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { out: { type: 'string' }, name: { type: 'string', default: 'Lantern publisher' } } });
  if (!values.out) throw new Error('keygen needs --out <file>');
  const key = await generateKey(values.name);
  await writeFile(values.out, `${JSON.stringify(key, null, 1)}\n`, { mode: 0o600, flag: 'wx' });
  console.log(`Wrote ${values.out}. Add this entry to the app's trust store:\n${JSON.stringify(trustEntryFor(key), null, 1)}`);
}

async function pack(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      key: { type: 'string', multiple: true },
      out: { type: 'string' },
      sequence: { type: 'string' },
      'chunk-size': { type: 'string' },
      expires: { type: 'string' },
      bundle: { type: 'string' },
      golden: { type: 'string' },
      'shadow-runs': { type: 'string' }, 'shadow-agreement': { type: 'string' }, rollout: { type: 'string' },
      id: { type: 'string' }, version: { type: 'string' }, title: { type: 'string' }, labels: { type: 'string' }, size: { type: 'string' },
      resize: { type: 'string' }, crop: { type: 'string' }, mean: { type: 'string' }, std: { type: 'string' }, output: { type: 'string' },
    },
  });
  const [folder] = positionals;
  if (!folder || !values.out || !values.key?.length) throw new Error('usage: model:pack -- <folder|model.onnx> --key key.json --out <dir> [--sequence N] [--bundle file.lantern]');
  const keys = await Promise.all(values.key.map(async (path) => {
    const text = await readFile(path, 'utf8').catch(() => {
      throw new ValidationError('A --key file cannot be read.');
    });
    try {
      return parseKeyFile(JSON.parse(text));
    } catch {
      throw new ValidationError('A --key file is not a key file written by model:keygen.');
    }
  }));
  const terminal = process.stdin.isTTY ? createInterface({ input: process.stdin, output: process.stdout }) : undefined;
  const ask: Ask | undefined = terminal && ((question) => terminal.question(question));
  const { model, graph } = await readModelSource(folder, values, ask).finally(() => terminal?.close());
  console.log(`Graph: ${describeGraph(graph)}`);
  const release = await packRelease(model, {
    keys,
    ...(values.sequence !== undefined ? { sequence: Number(values.sequence) } : {}),
    ...(values['chunk-size'] !== undefined ? { chunkSize: Number(values['chunk-size']) } : {}),
    ...(values.expires ? { expiresAt: new Date(values.expires).toISOString() } : {}),
    ...(values.golden ? { golden: await readGoldenSet(values.golden) } : {}),
    ...(values['shadow-runs'] !== undefined ? { shadow: { minRuns: Number(values['shadow-runs']), minAgreement: Number(values['shadow-agreement'] ?? 1) } } : {}),
    ...(values.rollout !== undefined ? { rollout: Number(values.rollout) } : {}),
  });
  await writeRelease(values.out, release);
  if (values.bundle) await writeFile(values.bundle, bundleOf(release));
  console.log(`Packed ${release.manifest.id} ${release.manifest.version} (sequence ${release.manifest.sequence}) into ${values.out}${values.bundle ? ` and ${values.bundle}` : ''}.`);
}

const [command, ...rest] = process.argv.slice(2);
const commands: Record<string, (args: string[]) => Promise<void>> = { keygen, pack };
const run = command ? commands[command] : undefined;
if (!run) {
  console.error('usage: model-cli.ts keygen|pack ...');
  process.exit(2);
}
run(rest).catch((error: unknown) => {
  console.error(error instanceof LanternError || error instanceof Error ? error.message : String(error));
  process.exit(1);
});
