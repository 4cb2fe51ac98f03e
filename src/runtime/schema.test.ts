import { z } from 'zod/mini';
import { describe, expect, it } from 'vitest';
import { ModelLoadError, ValidationError } from './errors.ts';
import { parseSchema } from './schema.ts';

const Schema = z.object({ size: z.object({ height: z.int().check(z.positive()) }) });

describe('parseSchema', () => {
  it('returns the parsed value', () => {
    expect(parseSchema(Schema, { size: { height: 3 } }, 'x.json')).toEqual({ size: { height: 3 } });
  });

  it('throws one sentence naming the file and the path of the first problem, as a ValidationError by default', () => {
    const error = (() => { try { parseSchema(Schema, { size: { height: -1 } }, 'preprocessor_config.json'); } catch (e) { return e; } })();
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as Error).message).toBe('preprocessor_config.json is not valid at "size.height": Too small: expected number to be >0.');
  });

  it('words zod\'s own problems in English (zod/mini loads no messages unless told to)', () => {
    expect(() => parseSchema(Schema, { size: { height: 'tall' } }, 'config.json')).toThrow('config.json is not valid at "size.height": Invalid input: expected number, received string.');
  });

  it('builds the caller\'s typed error from that sentence', () => {
    expect(() => parseSchema(Schema, {}, 'config.json', (m) => new ModelLoadError(m, { file: 'config.json' }))).toThrow(ModelLoadError);
  });
});
