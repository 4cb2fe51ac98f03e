import { InputError, ModelLoadError } from './errors.ts';
import { labelNamesOf, labelsOf } from './labels.ts';
import { DEFAULT_ONNX_FILES, onnxFiles } from './onnx-files.ts';
import type { FetchOptions, ModelDescriptor, ModelSource } from './model-source.ts';
import { guardedFetch, OriginPolicy, type GuardedResponse, type NetContext } from './store/net.ts';
import type { ModelFiles } from './worker-client.ts';

/** Hub-style ids: `name` or `org/name`; never `..`, a scheme or a query (the id becomes a URL path). */
const FOLDER_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*(?:\/[A-Za-z0-9][A-Za-z0-9._-]*)?$/;

/** Generous bounds that still stop a misconfigured server from filling the device's memory. */
const MAX_JSON_BYTES = 64 * 1024 * 1024;
const MAX_ONNX_BYTES = 2 * 1024 * 1024 * 1024 - 1;

type Task = ModelDescriptor['task'];

export interface FolderSourceOptions {
  fetch?: typeof fetch;
}

/**
 * Development models straight from transformers.js-layout folders (`<base>/<id>/config.json`,
 * `onnx/model_quantized.onnx` or `onnx/model.onnx`, plus `preprocessor_config.json` for images
 * or `tokenizer.json` + `tokenizer_config.json` for text), as `env.localModelPath` serves them.
 * Nothing is signed or stored: Lantern runs these only when created with `allowUnsigned: true`,
 * and every result says `signed: false`. Use `npm run model:pack` to sign a folder for release.
 */
export class FolderModelSource implements ModelSource {
  private readonly base: string;
  /** Only the folder's own origin: a redirect elsewhere is refused like the store's. */
  private readonly net: NetContext;
  private readonly described = new Map<string, Promise<{ descriptor: ModelDescriptor; config: Record<string, unknown> }>>();

  constructor(base: string | URL, options: FolderSourceOptions = {}) {
    const url = new URL(base, globalThis.document?.baseURI);
    this.base = url.href.endsWith('/') ? url.href : `${url.href}/`;
    this.net = { policy: new OriginPolicy(url.origin), fetch: options.fetch ?? fetch.bind(globalThis) };
  }

  /** Only the models described so far: an HTTP folder cannot be listed. */
  async list(): Promise<ModelDescriptor[]> {
    const settled = await Promise.allSettled(this.described.values());
    return settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value.descriptor] : []));
  }

  describe(id: string): Promise<ModelDescriptor> {
    return this.read(id).then((r) => r.descriptor);
  }

  async files(id: string, options: FetchOptions = {}): Promise<ModelFiles> {
    const { descriptor, config } = await this.read(id);
    const json = (file: string) => this.json(id, file, options.signal);
    const onnxChoice = onnxFiles(config, (message) => new ModelLoadError(`${message} (${id})`, { id, file: 'config.json' }));
    const [extra, onnx] = await Promise.all([
      descriptor.task === 'image-classification'
        ? json('preprocessor_config.json').then((preprocessor) => ({ preprocessor }))
        : Promise.all([json('tokenizer.json'), json('tokenizer_config.json')]).then(([tokenizer, tokenizerConfig]) => ({ tokenizer, tokenizerConfig })),
      this.onnx(id, onnxChoice, options),
    ]);
    return { key: `${descriptor.id}@${descriptor.version}`, onnx, config, ...extra };
  }

  private read(id: string): Promise<{ descriptor: ModelDescriptor; config: Record<string, unknown> }> {
    if (!FOLDER_ID.test(id)) return Promise.reject(new InputError('A folder model id is a name or org/name (letters, digits, . _ -).', { reason: 'bad-model-id' }));
    let entry = this.described.get(id);
    if (!entry) {
      entry = this.describeFolder(id);
      this.described.set(id, entry);
      // A folder fixed after a failed attempt is read again on the next call.
      entry.catch(() => this.described.delete(id));
    }
    return entry;
  }

  private async describeFolder(id: string): Promise<{ descriptor: ModelDescriptor; config: Record<string, unknown> }> {
    const config = await this.json(id, 'config.json');
    if (typeof config !== 'object' || config === null || Array.isArray(config)) throw new ModelLoadError('config.json is not a JSON object.', { id });
    const id2label = (config as { id2label?: unknown }).id2label;
    // Not validated here: the worker refuses a bad id2label by name when the model loads.
    const labels = id2label && typeof id2label === 'object' ? labelsOf({ id2label: id2label as Record<string, unknown> }).map(String) : [];
    const task = await this.task(id);
    const descriptor: ModelDescriptor = {
      id,
      // Folders carry no version; the session is keyed by id until the page reloads.
      version: 'dev',
      title: id,
      task,
      batch: 'dynamic',
      labels,
      labelNames: labelNamesOf(config, labels),
      sizeBytes: 0,
      samples: [],
      signed: false,
    };
    return { descriptor, config: config as Record<string, unknown> };
  }

  /** The folder's files say what it is, as they do for transformers.js' AutoProcessor. */
  private async task(id: string): Promise<Task> {
    if (await this.exists(id, 'preprocessor_config.json')) return 'image-classification';
    if (await this.exists(id, 'tokenizer.json')) return 'text-classification';
    throw new ModelLoadError('The folder has neither preprocessor_config.json (image model) nor tokenizer.json (text model).', { id });
  }

  /**
   * A file of the folder, or undefined when the server says it does not exist: a 404, or a web
   * page in its place (a development server that answers a missing file with the app's page,
   * as Vite's does, would otherwise hand ORT a page for the ONNX file it tries first).
   */
  private async get(id: string, file: string, signal?: AbortSignal): Promise<GuardedResponse | undefined> {
    const response = await guardedFetch(this.net, { url: new URL(`${id}/${file}`, this.base).href, what: `${file} of ${id}`, where: { id, file }, ...(signal ? { signal } : {}) });
    if (response.status === 404 || (response.ok && response.isWebPage)) {
      response.discard();
      return undefined;
    }
    if (!response.ok) {
      response.discard();
      throw response.statusError();
    }
    return response;
  }

  private async exists(id: string, file: string): Promise<boolean> {
    const response = await this.get(id, file);
    response?.discard();
    return response !== undefined;
  }

  private async json(id: string, file: string, signal?: AbortSignal): Promise<unknown> {
    const response = await this.get(id, file, signal);
    if (!response) throw new ModelLoadError(`The folder of ${id} has no ${file} (${this.folderUrl(id)}).`, { id, file });
    const bytes = await response.read(MAX_JSON_BYTES, () => new ModelLoadError(`${file} of ${id} is larger than ${MAX_JSON_BYTES} bytes.`, { id, file }));
    try {
      return JSON.parse(new TextDecoder().decode(bytes));
    } catch {
      throw new ModelLoadError(`${file} of ${id} is not valid JSON.`, { id, file });
    }
  }

  private folderUrl(id: string): string {
    return new URL(`${id}/`, this.base).href;
  }

  /** The ONNX bytes, streamed so that `load` can report download progress. */
  private async onnx(id: string, files: readonly string[], options: FetchOptions): Promise<ArrayBuffer> {
    for (const file of files) {
      const response = await this.get(id, file, options.signal);
      if (!response) continue;
      const totalBytes = Number(response.headers.get('Content-Length')) || undefined;
      const bytes = await response.read(
        MAX_ONNX_BYTES,
        () => new ModelLoadError(`${file} of ${id} is larger than ${MAX_ONNX_BYTES} bytes.`, { id, file }),
        (loadedBytes) => options.onProgress?.({ phase: 'download', loadedBytes, ...(totalBytes ? { totalBytes } : {}) }),
      );
      return bytes.buffer as ArrayBuffer;
    }
    // Only the file a dtype names is tried (onnx-files.ts): say so, or the missing quantized file looks like a bug.
    const why = files === DEFAULT_ONNX_FILES ? '' : ', the file its config.json\'s transformers.js_config.dtype names';
    throw new ModelLoadError(`The folder of ${id} has no ${files.join(' or ')}${why} (${this.folderUrl(id)}).`, { id });
  }

}
