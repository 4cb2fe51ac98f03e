import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKey } from '../../src/runtime/store/trust.ts';
import { readModelFolder } from './folder.ts';
import { packRelease } from './release.ts';

/** What model:pack refuses to sign: here, a text model whose tokenizer the worker could load but not use. */
const SPAM = join(import.meta.dirname, '../../models/spam-filter');
let work: string;
let n = 0;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'lantern-inspect-'));
});
afterAll(() => rm(work, { recursive: true, force: true }));

/** The spam filter with its tokenizer.json replaced by `tokenizer` (edited JSON, or raw text). */
async function packWithTokenizer(tokenizer: ((json: { model: Record<string, unknown> }) => unknown) | string) {
  const folder = join(work, `${n++}`);
  await cp(SPAM, folder, { recursive: true, filter: (p) => !/\/(recipe|eval)(\/|$)|model\.onnx$|\.test\.ts$/.test(p) });
  const original = JSON.parse(await readFile(join(SPAM, 'tokenizer.json'), 'utf8')) as { model: Record<string, unknown> };
  await writeFile(join(folder, 'tokenizer.json'), typeof tokenizer === 'string' ? tokenizer : JSON.stringify(tokenizer(original)));
  return packRelease(await readModelFolder(folder), { keys: [await generateKey('t')] }).then(() => 'packed', (error: Error) => error.message);
}

describe('model:pack checks the tokenizer as the worker loads it', () => {
  it('packs the spam filter\'s own tokenizer', async () => {
    expect(await packWithTokenizer((json) => json)).toBe('packed');
  });

  it('refuses a tokenizer.json that is not JSON, of a kind the library does not know, or that gives ids that are not token ids', async () => {
    expect(await packWithTokenizer('<html>not found</html>')).toBe('tokenizer.json is not valid JSON.');
    expect(await packWithTokenizer((json) => ({ ...json, model: { type: 'Foo' } }))).toBe('tokenizer.json cannot be used: Unknown TokenizerModel type: Foo');
    const vocab = (json: { model: Record<string, unknown> }) => json.model.vocab as Record<string, number>;
    expect(await packWithTokenizer((json) => ({ ...json, model: { ...json.model, vocab: { ...vocab(json), hello: -5 } } }))).toMatch(/does not give token ids/);
    expect(await packWithTokenizer((json) => ({ ...json, model: { ...json.model, vocab: { ...vocab(json), world: 2.5 } } }))).toMatch(/does not give token ids/);
  });
});
