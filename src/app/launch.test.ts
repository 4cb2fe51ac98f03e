import { describe, expect, it } from 'vitest';
import type { ModelDescriptor } from '../runtime/lantern.ts';
import { SHARED_CACHE } from '../share-target.ts';
import { consumeLaunchedFiles, launchFromUrl, launchModel, modelToShow } from './launch.ts';

const model = (id: string, task: ModelDescriptor['task']) => ({ id, task }) as ModelDescriptor;
const models = [model('fashion', 'image-classification'), model('spam', 'text-classification')];

describe('launch from the manifest entry points', () => {
  it('a shortcut or the file handler picks a task, a link a model', () => {
    expect(launchModel(models, launchFromUrl('?task=text-classification'))?.id).toBe('spam');
    expect(launchModel(models, launchFromUrl('?model=spam'))?.id).toBe('spam');
    expect(launchModel(models, launchFromUrl('?task=bogus'))?.id).toBe('fashion');
  });

  it('a model the link names is shown once it is installed, unless the user chose another', () => {
    const link = launchFromUrl('?model=spam');
    const firstVisit = [model('fashion', 'image-classification')];
    // The named model is not installed yet: another is shown meanwhile…
    expect(modelToShow(firstVisit, link, '', false)).toBe('fashion');
    // …and the named one replaces it when it arrives,
    expect(modelToShow(models, link, 'fashion', false)).toBe('spam');
    // but not once the user picked a model themselves.
    expect(modelToShow(models, link, 'fashion', true)).toBe('fashion');
    // A removed choice falls back to the launch's rule.
    expect(modelToShow(firstVisit, launchFromUrl('?task=image-classification'), 'spam', true)).toBe('fashion');
  });

  it('the share target joins what the share sheet filled and asks for a text model', () => {
    expect(launchFromUrl('?title=Offer&text=Win+a+cruise&url=')).toEqual({ sharedText: 'Offer\nWin a cruise', task: 'text-classification' });
    expect(launchFromUrl('?text=%20%20')).toEqual({});
  });

  it('images shared to Lantern ask for an image model', () => {
    expect(launchFromUrl('?task=image-classification&shared=abc')).toEqual({ sharedFiles: 'abc', task: 'image-classification' });
    expect(launchModel(models, launchFromUrl('?shared=abc'))?.id).toBe('fashion');
  });

  it('hands the files the OS opened with Lantern to the classifier', async () => {
    const file = new File(['x'], 'a.png', { type: 'image/png' });
    let consumer: ((params: { files: { getFile(): Promise<File> }[] }) => void) | undefined;
    const noCaches = { open: () => Promise.reject(new Error('not a share')), delete: () => Promise.reject(new Error('not a share')) };
    const got = new Promise<File[]>((resolve) => consumeLaunchedFiles(resolve, { launchQueue: { setConsumer: (c) => { consumer = c; } }, location: { search: '' }, caches: noCaches }));
    consumer!({ files: [{ getFile: async () => file }] });
    expect(await got).toEqual([file]);
  });

  it('hands the images shared to Lantern to the same classifier path, and empties their cache', async () => {
    const file = new File(['x'], 'photo.png', { type: 'image/png' });
    const deleted: string[] = [];
    const caches = {
      open: async (name: string) => ({
        keys: async () => [new Request(`https://lantern.test/share-target/abc/0/photo.png`)].filter(() => name === SHARED_CACHE),
        match: async () => new Response(file),
      }),
      delete: async (name: string) => deleted.push(name) > 0,
    };
    const got = await new Promise<File[]>((resolve) => consumeLaunchedFiles(resolve, { location: { search: '?task=image-classification&shared=abc' }, caches }));
    expect(got.map((f) => [f.name, f.type])).toEqual([['photo.png', 'image/png']]);
    expect(deleted).toEqual([SHARED_CACHE]);
  });
});
