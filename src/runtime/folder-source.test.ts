import { describe, expect, it } from 'vitest';
import { InputError, ModelLoadError, NetworkError } from './errors.ts';
import { FolderModelSource } from './folder-source.ts';
import type { LoadProgress } from './model-source.ts';

/** A transformers.js folder served from memory; `requests` records every URL asked for. */
function folder(files: Record<string, string | Uint8Array<ArrayBuffer>>, status: Record<string, number> = {}) {
  const requests: string[] = [];
  const fetcher = (async (input: RequestInfo | URL) => {
    const url = String(input);
    requests.push(url);
    const path = new URL(url).pathname.replace(/^\/models\//, '');
    if (status[path]) return new Response('', { status: status[path] });
    const body = files[path];
    if (body === undefined) return new Response('', { status: 404 });
    return new Response(body, { headers: { 'Content-Length': String(typeof body === 'string' ? body.length : body.byteLength) } });
  }) as typeof fetch;
  return { source: new FolderModelSource('https://dev.example/models/', { fetch: fetcher }), requests };
}

const CONFIG = JSON.stringify({ id2label: { 1: 'dog', 0: 'cat' } });

describe('FolderModelSource', () => {
  it('describes an image folder from its files, unsigned and without any Lantern key', async () => {
    const { source } = folder({ 'org/vit/config.json': CONFIG, 'org/vit/preprocessor_config.json': '{}', 'org/vit/onnx/model.onnx': new Uint8Array(8) });
    const d = await source.describe('org/vit');
    expect(d).toMatchObject({ id: 'org/vit', task: 'image-classification', labels: ['cat', 'dog'], signed: false });
    expect((await source.list()).map((m) => m.id)).toEqual(['org/vit']);
    expect(d.labelNames).toEqual([{}, {}]);
  });

  it('gives the names its config.json gives the labels, in label order', async () => {
    const config = JSON.stringify({ id2label: { 1: 'dog', 0: 'cat' }, lantern: { display_names: { dog: 'Dog' }, localized_display_names: { hi: { cat: 'बिल्ली' } } } });
    const { source } = folder({ 'pets/config.json': config, 'pets/preprocessor_config.json': '{}', 'pets/onnx/model.onnx': new Uint8Array(8) });
    expect((await source.describe('pets')).labelNames).toEqual([{ localizedNames: { hi: 'बिल्ली' } }, { displayName: 'Dog' }]);
  });

  it('reads a text folder with the quantized ONNX first, reporting download progress', async () => {
    const onnx = new Uint8Array(1000).fill(3);
    const { source, requests } = folder({
      'spam/config.json': CONFIG, 'spam/tokenizer.json': '{"model":{}}', 'spam/tokenizer_config.json': '{}', 'spam/onnx/model_quantized.onnx': onnx,
    });
    const progress: LoadProgress[] = [];
    const files = await source.files('spam', { onProgress: (p) => progress.push(p) });
    expect(files.key).toBe('spam@dev');
    expect(new Uint8Array(files.onnx)).toEqual(onnx);
    expect(files.tokenizer).toEqual({ model: {} });
    expect(files.preprocessor).toBeUndefined();
    expect(progress.at(-1)).toEqual({ phase: 'download', loadedBytes: 1000, totalBytes: 1000 });
    expect(requests.some((u) => u.endsWith('onnx/model.onnx'))).toBe(false);
  });

  it('loads the file config.json\'s transformers.js_config.dtype names, and no other, as transformers.js does', async () => {
    const fp32 = new Uint8Array(16).fill(7);
    const { source, requests } = folder({
      'vit/config.json': JSON.stringify({ id2label: { 0: 'cat', 1: 'dog' }, 'transformers.js_config': { dtype: 'fp32' } }), 'vit/preprocessor_config.json': '{}',
      'vit/onnx/model_quantized.onnx': new Uint8Array(8), 'vit/onnx/model.onnx': fp32,
      'q4/config.json': JSON.stringify({ id2label: { 0: 'cat', 1: 'dog' }, 'transformers.js_config': { dtype: 'q4' } }), 'q4/preprocessor_config.json': '{}',
      'q4/onnx/model_quantized.onnx': new Uint8Array(8),
    });
    expect(new Uint8Array((await source.files('vit')).onnx)).toEqual(fp32);
    expect(requests.some((u) => u.endsWith('vit/onnx/model_quantized.onnx'))).toBe(false);
    // The named file is missing: no other file stands in for it.
    await expect(source.files('q4')).rejects.toThrow(new ModelLoadError('The folder of q4 has no onnx/model_q4.onnx, the file its config.json\'s transformers.js_config.dtype names (https://dev.example/models/q4/).', { id: 'q4' }));
  });

  it('refuses ids that would leave the folder, and says which file is missing or broken', async () => {
    const { source, requests } = folder({ 'a/config.json': CONFIG, 'b/config.json': '{', 'c/config.json': CONFIG, 'c/preprocessor_config.json': '{}' }, { 'd/config.json': 500 });
    for (const id of ['../secret', 'a/../../x', 'https://evil.example/m', 'a?x=1', '']) await expect(source.describe(id)).rejects.toBeInstanceOf(InputError);
    expect(requests).toEqual([]);
    await expect(source.describe('a')).rejects.toThrow(/neither preprocessor_config.json/);
    await expect(source.describe('b')).rejects.toThrow(/config.json of b is not valid JSON/);
    await expect(source.files('c')).rejects.toBeInstanceOf(ModelLoadError);
    await expect(source.describe('d')).rejects.toBeInstanceOf(NetworkError);
    await expect(source.describe('missing')).rejects.toThrow(/has no config.json/);
  });

  it('takes a web page served for a missing file (a development server answering with the app\'s page) as missing', async () => {
    const fp32 = new Uint8Array(16).fill(5);
    const files: Record<string, string | Uint8Array<ArrayBuffer>> = { 'vit/config.json': CONFIG, 'vit/preprocessor_config.json': '{}', 'vit/onnx/model.onnx': fp32 };
    const page = '<!doctype html><title>My app</title>';
    const spa = (async (input: RequestInfo | URL) => {
      const body = files[new URL(String(input)).pathname.replace(/^\/models\//, '')];
      return body === undefined ? new Response(page, { headers: { 'Content-Type': 'text/html' } }) : new Response(body);
    }) as typeof fetch;
    const source = new FolderModelSource('https://dev.example/models/', { fetch: spa });
    // The quantized file, tried first, is the app's page: the full-precision one is loaded instead.
    expect(new Uint8Array((await source.files('vit')).onnx)).toEqual(fp32);
    await expect(source.describe('nope')).rejects.toThrow(new ModelLoadError('The folder of nope has no config.json (https://dev.example/models/nope/).', { id: 'nope', file: 'config.json' }));
  });

  it('refuses a folder server that redirects to another origin', async () => {
    const redirected = (async () => Object.defineProperty(new Response('{}'), 'url', { value: 'https://elsewhere.example/models/a/config.json' })) as typeof fetch;
    const source = new FolderModelSource('https://dev.example/models/', { fetch: redirected });
    await expect(source.describe('a')).rejects.toThrow(/redirected to an address that is not an allowed model source/);
  });
});
