import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/runtime/errors.ts';
import { readGoldenSet, type GoldenModel } from './golden.ts';

let work: string;
const set = join('set', 'golden.json');
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'lantern-golden-'));
  await mkdir(join(work, 'set', 'img'), { recursive: true });
  await writeFile(join(work, 'signing-key.json'), 'PRIVATE');
  await writeFile(join(work, 'set', 'img', 'a.png'), 'png-a');
  await symlink(join(work, 'signing-key.json'), join(work, 'set', 'img', 'key.png'));
});
afterAll(() => rm(work, { recursive: true, force: true }));

/** An image model with labels "0" and "1". */
const IMAGES = { task: 'image-classification', labels: ['0', '1'] } as const;
const golden = async (items: unknown[], model: GoldenModel = IMAGES) => {
  await writeFile(join(work, set), JSON.stringify({ threshold: 0.5, items }));
  return readGoldenSet(join(work, set), model);
};
const refusal = (items: unknown[], model?: GoldenModel) => golden(items, model).then(() => 'accepted', (error: unknown) => {
  expect(error).toBeInstanceOf(ValidationError);
  return (error as Error).message;
});

describe('model:pack --golden (attack case 8)', () => {
  it('publishes images from inside the golden set folder', async () => {
    const result = await golden([{ image: 'img/a.png', label: '0' }, { image: './img/a.png', label: '1' }]);
    expect(result.files.map((f) => [f.path, new TextDecoder().decode(f.bytes)])).toEqual([['golden/a.png', 'png-a']]);
    expect(result.validation.items.map((i) => i.input)).toEqual([{ kind: 'image', path: 'golden/a.png' }, { kind: 'image', path: 'golden/a.png' }]);
  });

  it.each([['../signing-key.json'], ['img/../../signing-key.json'], [join('/', 'etc', 'hostname')], ['img/key.png']])('refuses %s', async (image) => {
    expect(await refusal([{ image: 'img/a.png', label: '1' }, { image, label: '0' }])).toBe("Golden item 2: its image must be a file inside the golden set's folder.");
  });
});

describe('model:pack --golden: items the model can answer', () => {
  it('refuses an item of the other kind than the model, naming it', async () => {
    expect(await refusal([{ image: 'img/a.png', label: '0' }, { text: 'hello', label: '1' }])).toBe('Golden item 2 is a text item, but the model classifies images.');
    expect(await refusal([{ image: 'img/a.png', label: 'ham' }], { task: 'text-classification', labels: ['ham', 'spam'] })).toBe('Golden item 1 is an image item, but the model classifies text.');
  });

  it('refuses an expected label the model does not have, naming the item', async () => {
    expect(await refusal([{ image: 'img/a.png', label: '0' }, { image: 'img/a.png', label: 'cat' }])).toBe('Golden item 2 expects the label "cat", which is not one of the model\'s labels (config.json id2label): "0", "1".');
    const text = await golden([{ text: 'win a cruise', label: 'spam' }], { task: 'text-classification', labels: ['ham', 'spam'] });
    expect(text.validation.items).toEqual([{ input: { kind: 'text', text: 'win a cruise' }, label: 'spam' }]);
  });
});
