import { execFile } from 'node:child_process';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import pkg from '../package.json' with { type: 'json' };
import { runCli, type Cli } from './cli.mjs';
import { modelCli, USAGE as MODEL_USAGE } from './model-cli.ts';
import { serveCli, USAGE as SERVE_USAGE } from './model-serve.ts';
import { close, listen } from './raw-http.test-helpers.ts';

/** The CLIs' conventions: help, version, exit codes, and messages without stack traces. */
const ROOT = join(import.meta.dirname, '..');
const PACK: Cli = { name: 'lantern-model', usage: MODEL_USAGE };
const SERVE: Cli = { name: 'lantern-model-serve', usage: SERVE_USAGE };

/** Runs a CLI in-process, capturing what it prints and the exit code it sets. */
async function call(cli: Cli, main: (args: string[]) => Promise<void>, ...args: string[]) {
  let stdout = '';
  let stderr = '';
  let exit: number | undefined;
  const returned = await runCli(cli, args, main, { out: (t) => (stdout += `${t}\n`), err: (t) => (stderr += `${t}\n`), exit: (c) => (exit = c) });
  expect(exit).toBe(returned);
  return { code: returned, stdout, stderr };
}

/** A Node stack frame: what a user must never see for their own mistake. */
const STACK = /^\s+at /m;

describe('lantern-model (model-cli.ts)', () => {
  it('--help prints the usage and exits 0, for any command', async () => {
    for (const args of [['--help'], ['pack', '--help'], ['-h']]) {
      expect(await call(PACK, modelCli, ...args)).toEqual({ code: 0, stdout: `${MODEL_USAGE}\n`, stderr: '' });
    }
    expect(MODEL_USAGE).toMatch(/^Usage:\n {2}lantern-model keygen/);
  });

  it('--version prints the package version', async () => {
    expect(await call(PACK, modelCli, '--version')).toEqual({ code: 0, stdout: `lantern-model ${pkg.version}\n`, stderr: '' });
  });

  it('alone after a command (how `npm run model:pack -- --version` calls it), --version prints the version', async () => {
    for (const command of ['keygen', 'pack', 'catalog', 'sign', 'withdraw', 'verify']) {
      expect(await call(PACK, modelCli, command, '--version'), command).toEqual({ code: 0, stdout: `lantern-model ${pkg.version}\n`, stderr: '' });
    }
  });

  it('after a command, --version is that command\'s option, not the tool\'s version', async () => {
    // pack's --version names the release: it must reach pack (here: which then wants a key).
    const result = await call(PACK, modelCli, 'pack', 'models/spam-filter', '--version', '9.9.9');
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^lantern-model: pack needs --key/);
  });

  it('exits 2 with a hint, no stack, for usage errors', async () => {
    for (const args of [[], ['publish'], ['toString'], ['pack', '--bogus'], ['pack', 'models/spam-filter'], ['keygen'], ['pack', 'x', '--key', 'k', '--out', 'o', '--sequence', 'ten'], ['pack', 'x', '--key', 'k', '--out', 'o', '--expires', 'soon'], ['pack', 'x', '--key', 'k', '--out', 'o', '--rollout', '1.5'], ['pack', 'x', '--key', 'k', '--out', 'o', '--shadow-runs', '0'], ['pack', 'x', '--key', 'k', '--out', 'o', '--shadow-runs', '5', '--shadow-agreement', 'most']]) {
      const result = await call(PACK, modelCli, ...args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(/^lantern-model: .+\nRun with --help for usage.\n$/);
      expect(result.stderr).not.toMatch(STACK);
    }
  });

  it('exits 1 with the message and no stack when the work fails', async () => {
    const result = await call(PACK, modelCli, 'pack', 'no-such-folder', '--key', 'no-such-key.json', '--out', 'out');
    expect(result).toEqual({ code: 1, stdout: '', stderr: 'lantern-model: no-such-key.json does not exist: check the path (files are written only into folders that exist).\n' });
  });
});

describe('lantern-model-serve (model-serve.ts)', () => {
  it('--help and --version exit 0', async () => {
    expect(await call(SERVE, serveCli, '--help')).toEqual({ code: 0, stdout: `${SERVE_USAGE}\n`, stderr: '' });
    expect((await call(SERVE, serveCli, '-V')).stdout).toBe(`lantern-model-serve ${pkg.version}\n`);
  });

  it('exits 2 for a bad flag, port or folder count, 1 for a missing folder, never with a stack', async () => {
    const bad = await call(SERVE, serveCli, 'dist', '--prot', '1');
    // A typo is answered with the flag it was most likely meant to be.
    expect([bad.code, bad.stderr]).toEqual([2, 'lantern-model-serve: unknown option --prot: did you mean --port?\nRun with --help for usage.\n']);
    expect((await call(PACK, modelCli, 'keygen', '--outt', 'k.json')).stderr).toBe('lantern-model: unknown option --outt: did you mean --out?\nRun with --help for usage.\n');
    for (const args of [['dist', '--port', '99999'], ['dist', '--port', 'http'], [], ['a', 'b']]) expect((await call(SERVE, serveCli, ...args)).code, args.join(' ')).toBe(2);
    const missing = await call(SERVE, serveCli, 'no-such-folder');
    expect(missing).toEqual({ code: 1, stdout: '', stderr: 'lantern-model-serve: no-such-folder is not a folder.\n' });
    expect(bad.stderr + missing.stderr).not.toMatch(STACK);
  });

  it('names a port in use and what to do, exit 1; and a folder that is not a releases folder', async () => {
    const releases = await mkdtemp(join(tmpdir(), 'lantern-serve-'));
    const busy = createServer();
    const port = await listen(busy);
    try {
      expect(await call(SERVE, serveCli, releases, '--port', String(port))).toEqual({ code: 1, stdout: '', stderr: `lantern-model-serve: ${releases} has no catalog.json: serve the releases folder model:pack --out wrote.\n` });
      await writeFile(join(releases, 'catalog.json'), '{}');
      expect(await call(SERVE, serveCli, releases, '--port', String(port))).toEqual({ code: 1, stdout: '', stderr: `lantern-model-serve: Port ${port} is already in use: pass --port with a free port.\n` });
    } finally {
      await close(busy);
      await rm(releases, { recursive: true, force: true });
    }
  });
});

describe('as processes', () => {
  const run = (command: string, args: string[]) => new Promise<{ code: number; stderr: string }>((resolve) => {
    execFile(command, args, { cwd: ROOT, env: { ...process.env, LANTERN_DEBUG: '' } }, (error, _stdout, stderr) => {
      resolve({ code: error ? Number(error.code) : 0, stderr });
    });
  });
  const spawn = (script: string, ...args: string[]) => run(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', script), ...args]);
  /** As the tools' `#!/usr/bin/env tsx` line starts them: tsx given the script's path. */
  const spawnTsx = (script: string, ...args: string[]) => run(join(ROOT, 'node_modules/.bin/tsx'), [script, ...args]);

  // One run each: the exit code reaches the shell and nothing else is printed.
  it('exit with the code the conventions give', async () => {
    const [pack, serve] = await Promise.all([spawn('model-cli.ts', 'pack', '--bogus'), spawn('model-serve.ts', 'no-such-folder')]);
    expect(pack).toEqual({ code: 2, stderr: 'lantern-model: unknown option --bogus.\nRun with --help for usage.\n' });
    expect(serve).toEqual({ code: 1, stderr: 'lantern-model-serve: no-such-folder is not a folder.\n' });
  }, 120_000);

  it('run when started through a symlink, as npm\'s node_modules/.bin links start them', async () => {
    const links = await mkdtemp(join(tmpdir(), 'lantern-bin-'));
    try {
      await symlink(join(ROOT, 'scripts', 'model-cli.ts'), join(links, 'lantern-model'));
      await symlink(join(ROOT, 'scripts', 'model-serve.ts'), join(links, 'lantern-model-serve'));
      const [pack, serve] = await Promise.all([spawnTsx(join(links, 'lantern-model'), 'publish'), spawnTsx(join(links, 'lantern-model-serve'), 'no-such-folder')]);
      expect(pack).toEqual({ code: 2, stderr: 'lantern-model: unknown command "publish": use keygen, pack, catalog, sign, withdraw or verify.\nRun with --help for usage.\n' });
      expect(serve.code).toBe(1);
    } finally {
      await rm(links, { recursive: true, force: true });
    }
  }, 120_000);
});
