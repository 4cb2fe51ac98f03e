// @ts-check
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pkg from '../package.json' with { type: 'json' };

/**
 * What every Lantern command-line tool does the same way (the usual Unix conventions):
 * `--help`/`-h` prints usage on stdout and exits 0; `--version`/`-V` as the first argument (or
 * alone after a command) prints the version; a usage error (unknown flag, missing argument) prints the message and a hint on
 * stderr and exits 2; any other failure prints its message, never a stack trace, and exits 1 (set
 * LANTERN_DEBUG=1 for the stack). Plain JS so that the production server (serve.mjs, run by plain
 * Node) follows them too.
 */

/** The command line itself is wrong: exit code 2. */
export class UsageError extends Error {
  /** @override */
  name = 'UsageError';
}

/**
 * `parseArgs` (strict by default: unknown flags are errors), with its errors turned into UsageError.
 * @template {import('node:util').ParseArgsConfig} T
 * @param {T} config
 * @returns {ReturnType<typeof parseArgs<T>>}
 */
export function parseCommandLine(config) {
  try {
    return parseArgs(config);
  } catch (error) {
    const { code, message } = /** @type {NodeJS.ErrnoException} */ (error);
    const unknown = code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /'(-{1,2}[^']*)'/.exec(message)?.[1] : undefined;
    if (unknown === undefined) throw new UsageError(message);
    // Node's own text goes on about positional arguments; a typo wants the flag it was meant to be.
    const meant = closestOption(unknown.replace(/^-+/, ''), Object.keys(config.options ?? {}));
    throw new UsageError(`unknown option ${unknown}${meant ? `: did you mean --${meant}?` : '.'}`);
  }
}

/**
 * The option a mistyped name most likely meant: at most two letters added, dropped or changed.
 * Written here rather than taken from a package: the production server (serve.mjs) imports this
 * module, and a dozen lines are not worth a runtime dependency.
 * @param {string} typed
 * @param {readonly string[]} options
 * @returns {string | undefined}
 */
function closestOption(typed, options) {
  /** Levenshtein distance, one row at a time. @param {string} a @param {string} b */
  const distance = (a, b) => {
    let row = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      /** @type {number[]} */
      const next = [i];
      for (let j = 1; j <= b.length; j++) next[j] = Math.min((row[j] ?? 0) + 1, (next[j - 1] ?? 0) + 1, (row[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
      row = next;
    }
    return row[b.length] ?? Infinity;
  };
  const ranked = options.map((option) => ({ option, d: distance(typed, option) })).filter(({ d }) => d <= 2).sort((x, y) => x.d - y.d);
  return ranked[0]?.option;
}

/**
 * A positive integer option, or a UsageError naming it.
 * @param {string} name
 * @param {string} value
 * @param {{ min?: number, max?: number }} [range]
 */
export function integerOption(name, value, { min = 0, max = Number.MAX_SAFE_INTEGER } = {}) {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) throw new UsageError(`--${name} must be a whole number from ${min} to ${max}.`);
  return n;
}

/**
 * A number from 0 to 1 (a fraction of devices, an agreement rate), or a UsageError naming it.
 * @param {string} name
 * @param {string} value
 */
export function fractionOption(name, value) {
  const n = Number(value);
  if (value.trim() === '' || !(n >= 0 && n <= 1)) throw new UsageError(`--${name} must be a number from 0 to 1.`);
  return n;
}

/**
 * Whether the module at `moduleUrl` is the script this process was started with. Compared as real
 * paths: started through a symlink (npm's node_modules/.bin links), argv[1] is the link's path.
 * @param {string} moduleUrl the module's import.meta.url
 */
export function isEntryPoint(moduleUrl) {
  const started = process.argv[1];
  if (!started) return false;
  try {
    return realpathSync(fileURLToPath(moduleUrl)) === realpathSync(started);
  } catch {
    return false;
  }
}

/**
 * Makes relative paths on the command line resolve from where the user typed it: `npm run` starts
 * a script in the package's folder, and npm says where it was run from in INIT_CWD. For the tools
 * whose arguments are the user's own paths (not serve.mjs, whose default --dir is the build's).
 */
export function resolvePathsFromWhereTyped() {
  const typedIn = process.env.INIT_CWD;
  if (typedIn) process.chdir(typedIn);
}

/**
 * What to tell the user for the system errors their own paths and ports cause, as one sentence
 * naming the path (or port) and what to do; undefined for any other error.
 * @param {unknown} error
 * @returns {string | undefined}
 */
export function systemErrorSentence(error) {
  if (!(error instanceof Error)) return undefined;
  const { code, path, port } = /** @type {NodeJS.ErrnoException & { port?: number }} */ (error);
  if (port !== undefined && code === 'EADDRINUSE') return `Port ${port} is already in use: pass --port with a free port.`;
  if (port !== undefined && code === 'EACCES') return `Port ${port} needs administrator rights: pass --port with a port above 1023.`;
  if (path === undefined) return undefined;
  switch (code) {
    case 'ENOENT': return `${path} does not exist: check the path (files are written only into folders that exist).`;
    case 'EEXIST': return `${path} already exists: choose another path, or move the file away (it is never overwritten).`;
    case 'ENOTDIR': return `${path} cannot be used: a file stands where a folder is needed on that path; choose another path.`;
    case 'EISDIR': return `${path} is a folder: name a file.`;
    case 'EACCES':
    case 'EPERM': return `${path} cannot be accessed: permission denied; choose a path you may use or change its permissions.`;
    default: return undefined;
  }
}

/**
 * @typedef {{ name: string, usage: string }} Cli `name`: what users type, e.g. "lantern-model".
 * @typedef {{ out: (text: string) => void, err: (text: string) => void, exit: (code: number) => void }} CliIo
 */

/** @type {CliIo} */
const processIo = {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
  exit: (code) => {
    process.exitCode = code;
  },
};

/** @param {readonly string[]} args */
const wantsHelp = (args) => args.includes('--help') || args.includes('-h');
/** @param {string | undefined} arg */
const isVersionFlag = (arg) => arg === '--version' || arg === '-V';
/**
 * As the first argument, or alone after a command (`npm run model:pack -- --version`, whose script
 * names the command): anywhere else `--version` is that command's own option
 * (`lantern-model pack … --version 1.2.0` names the release being packed).
 * @param {readonly string[]} args
 */
const wantsVersion = (args) => isVersionFlag(args[0]) || (args.length === 2 && isVersionFlag(args[1]));

/**
 * Runs `main(args)` under the conventions above. Resolves with the exit code (also set on the
 * process unless `io` is given), so tests can call it directly.
 * @param {Cli} cli
 * @param {readonly string[]} args
 * @param {(args: string[]) => Promise<void>} main
 * @param {CliIo} [io]
 * @returns {Promise<number>}
 */
export async function runCli(cli, args, main, io = processIo) {
  /** @param {number} code */
  const done = (code) => {
    io.exit(code);
    return code;
  };
  if (wantsHelp(args)) {
    io.out(cli.usage);
    return done(0);
  }
  if (wantsVersion(args)) {
    io.out(`${cli.name} ${pkg.version}`);
    return done(0);
  }
  try {
    await main([...args]);
    return done(0);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`${cli.name}: ${error.message}\nRun with --help for usage.`);
      return done(2);
    }
    const message = systemErrorSentence(error) ?? (error instanceof Error ? error.message : String(error));
    io.err(`${cli.name}: ${message}`);
    if (process.env.LANTERN_DEBUG && error instanceof Error && error.stack) io.err(error.stack);
    return done(1);
  }
}
