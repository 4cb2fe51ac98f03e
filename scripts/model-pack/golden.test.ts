import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/runtime/errors.ts';
import { readGoldenSet } from './golden.ts';

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

const golden = async (items: unknown[]) => {
  await writeFile(join(work, set), JSON.stringify({ threshold: 0.5, items }));
  return readGoldenSet(join(work, set));
};

describe('model:pack --golden (attack case 8)', () => {
  it('publishes images from inside the golden set folder', async () => {
    const result = await golden([{ image: 'img/a.png', label: '0' }, { text: 'hello', label: '1' }, { image: './img/a.png', label: '0' }]);
    expect(result.files.map((f) => [f.path, new TextDecoder().decode(f.bytes)])).toEqual([['golden/a.png', 'png-a']]);
    expect(result.validation.items.map((i) => i.input)).toEqual([{ kind: 'image', path: 'golden/a.png' }, { kind: 'text', text: 'hello' }, { kind: 'image', path: 'golden/a.png' }]);
  });

  it.each([['../signing-key.json'], ['img/../../signing-key.json'], [join('/', 'etc', 'hostname')], ['img/key.png']])('refuses %s', async (image) => {
    const error = await golden([{ text: 'x', label: '1' }, { image, label: '0' }]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as Error).message).toBe("Golden item 2: its image must be a file inside the golden set's folder.");
  });
});
