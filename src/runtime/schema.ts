// Configures zod (jitless, English messages) also where no entry is imported: the tests and the CLI.
import './zod-setup.ts';
import type { z } from 'zod/mini';
import { LanternError, ValidationError } from './errors.ts';

/** Formats a zod error as one human sentence naming the file. */
export function describeSchemaError(file: string, error: z.core.$ZodError): string {
  const issue = error.issues[0];
  const where = issue && issue.path.length ? ` at "${issue.path.join('.')}"` : '';
  return `${file} is not valid${where}: ${issue?.message ?? 'unknown problem'}.`;
}

/**
 * Parses `value` with `schema`, or throws one sentence naming `file` and the first problem, as a
 * ValidationError unless `fail` builds another typed error from that sentence.
 */
export function parseSchema<T>(schema: z.ZodMiniType<T>, value: unknown, file: string, fail: (message: string) => LanternError = (message) => new ValidationError(message)): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw fail(describeSchemaError(file, parsed.error));
  return parsed.data;
}
