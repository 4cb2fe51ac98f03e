import { parseArgs, type ParseArgsConfig } from 'node:util';
import pkg from '../package.json' with { type: 'json' };

/**
 * What every Lantern command-line tool does the same way (the usual Unix conventions):
 * `--help`/`-h` prints usage on stdout and exits 0; `--version`/`-V` as the first argument prints
 * the version; a usage error (unknown flag, missing argument) prints the message and a hint on
 * stderr and exits 2; any other failure prints its message, never a stack trace, and exits 1 (set
 * LANTERN_DEBUG=1 for the stack).
 */

/** The command line itself is wrong: exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** `parseArgs` (strict by default: unknown flags are errors), with its errors turned into UsageError. */
export function parseCommandLine<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** A positive integer option, or a UsageError naming it. */
export function integerOption(name: string, value: string, { min = 0, max = Number.MAX_SAFE_INTEGER } = {}): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) throw new UsageError(`--${name} must be a whole number from ${min} to ${max}.`);
  return n;
}

/** A number from 0 to 1 (a fraction of devices, an agreement rate), or a UsageError naming it. */
export function fractionOption(name: string, value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !(n >= 0 && n <= 1)) throw new UsageError(`--${name} must be a number from 0 to 1.`);
  return n;
}

export interface Cli {
  /** The name users type, e.g. "model:pack". */
  name: string;
  usage: string;
}

export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
  exit: (code: number) => void;
}

const processIo: CliIo = {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
  exit: (code) => {
    process.exitCode = code;
  },
};

const wantsHelp = (args: readonly string[]) => args.includes('--help') || args.includes('-h');
/**
 * Only as the first argument: after a command, `--version` is that command's own option
 * (`lantern-model pack … --version 1.2.0` names the release being packed).
 */
const wantsVersion = (args: readonly string[]) => args[0] === '--version' || args[0] === '-V';

/**
 * Runs `main(args)` under the conventions above. Resolves with the exit code (also set on the
 * process unless `io` is given), so tests can call it directly.
 */
export async function runCli(cli: Cli, args: readonly string[], main: (args: string[]) => Promise<void>, io: CliIo = processIo): Promise<number> {
  const done = (code: number) => {
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
    const message = error instanceof Error ? error.message : String(error);
    io.err(`${cli.name}: ${message}`);
    if (process.env.LANTERN_DEBUG && error instanceof Error && error.stack) io.err(error.stack);
    return done(1);
  }
}
