import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/** Every built-in model's README starts with a Hugging Face model-card header that agrees with its config. */
const DIR = import.meta.dirname;
const models = readdirSync(DIR, { withFileTypes: true }).filter((e) => e.isDirectory() && !e.name.startsWith('_')).map((e) => e.name);

/** The flat `key: value` lines of a YAML front matter (lists are not needed here). */
function frontMatter(markdown: string): Map<string, string> | undefined {
  const match = /^---\n([\s\S]*?)\n---\n/.exec(markdown);
  if (!match) return undefined;
  return new Map(match[1]!.split('\n').flatMap((line) => {
    const pair = /^([a-z_]+):\s*(\S.*)$/.exec(line);
    return pair ? [[pair[1]!, pair[2]!] as const] : [];
  }));
}

describe('model cards', () => {
  it('exist for every built-in model', () => expect(models.sort()).toEqual(['doc-orientation', 'fashion-mnist', 'spam-filter']));

  it.each(models)('%s has a license, the task of its config as pipeline_tag, and transformers.js as library', (name) => {
    const card = frontMatter(readFileSync(join(DIR, name, 'README.md'), 'utf8'));
    const config = JSON.parse(readFileSync(join(DIR, name, 'config.json'), 'utf8')) as { lantern: { task: string } };
    expect(card?.get('license')).toMatch(/^(mit|apache-2\.0)$/);
    expect(card?.get('pipeline_tag')).toBe(config.lantern.task);
    expect(card?.get('library_name')).toBe('transformers.js');
  });

  it('keep the weights\' source licence: PaddleOCR\'s Apache-2.0 for doc-orientation', () => {
    expect(frontMatter(readFileSync(join(DIR, 'doc-orientation', 'README.md'), 'utf8'))?.get('license')).toBe('apache-2.0');
  });
});
