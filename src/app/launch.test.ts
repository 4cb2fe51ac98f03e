import { describe, expect, it } from 'vitest';
import type { ModelDescriptor } from '../runtime/lantern.ts';
import { consumeLaunchedFiles, launchFromUrl, launchModel } from './launch.ts';

const model = (id: string, task: ModelDescriptor['task']) => ({ id, task }) as ModelDescriptor;
const models = [model('fashion', 'image-classification'), model('spam', 'text-classification')];

describe('launch from the manifest entry points', () => {
  it('a shortcut or the file handler picks a task, a link a model', () => {
    expect(launchModel(models, launchFromUrl('?task=text-classification'))?.id).toBe('spam');
    expect(launchModel(models, launchFromUrl('?model=spam'))?.id).toBe('spam');
    expect(launchModel(models, launchFromUrl('?task=bogus'))?.id).toBe('fashion');
  });

  it('the share target joins what the share sheet filled and asks for a text model', () => {
    expect(launchFromUrl('?title=Offer&text=Win+a+cruise&url=')).toEqual({ sharedText: 'Offer\nWin a cruise', task: 'text-classification' });
    expect(launchFromUrl('?text=%20%20')).toEqual({});
  });

  it('hands the files the OS opened with Lantern to the classifier', async () => {
    const file = new File(['x'], 'a.png', { type: 'image/png' });
    let consumer: ((params: { files: { getFile(): Promise<File> }[] }) => void) | undefined;
    const got = new Promise<File[]>((resolve) => consumeLaunchedFiles(resolve, { launchQueue: { setConsumer: (c) => { consumer = c; } } }));
    consumer!({ files: [{ getFile: async () => file }] });
    expect(await got).toEqual([file]);
  });
});
