import { z } from 'zod';
import { ModelLoadError, NetworkError } from './errors.ts';
import type { ModelFiles } from './worker-client.ts';

/** What the UI and scheduler need to know about a model version without loading it. */
export interface ModelDescriptor {
  id: string;
  version: string;
  title: string;
  task: 'text-classification' | 'image-classification';
  batch: 'dynamic' | 'fixed';
  labels: string[];
  /** Bytes of the ONNX file. */
  sizeBytes: number;
  /** Built-in example inputs, relative URLs. */
  samples: { name: string; url: string; kind: 'text' | 'image' }[];
}

/** Where models come from: the built-in catalog, or the signed store. */
export interface ModelSource {
  list(): Promise<ModelDescriptor[]>;
  /** The active version's files, verified, ready to hand to a worker. */
  files(id: string): Promise<ModelFiles>;
  describe(id: string): Promise<ModelDescriptor>;
}

export const CatalogEntrySchema = z.object({
  id: z.string(),
  version: z.string(),
  title: z.string(),
  task: z.enum(['text-classification', 'image-classification']),
  batch: z.enum(['dynamic', 'fixed']),
  labels: z.array(z.string()),
  sizeBytes: z.number().int().nonnegative(),
  files: z.object({
    config: z.string(),
    onnx: z.string(),
    preprocessor: z.string().optional(),
    tokenizer: z.string().optional(),
    tokenizerConfig: z.string().optional(),
  }),
  samples: z.array(z.object({ name: z.string(), url: z.string(), kind: z.enum(['text', 'image']) })).default([]),
});
export const CatalogSchema = z.object({ models: z.array(CatalogEntrySchema) });
export type CatalogEntry = z.infer<typeof CatalogEntrySchema>;

async function fetchOk(url: string, fetcher: typeof fetch): Promise<Response> {
  let response: Response;
  try {
    response = await fetcher(url);
  } catch (error) {
    throw new NetworkError(`Could not fetch ${url}: ${(error as Error).message}`, { url });
  }
  if (!response.ok) throw new NetworkError(`Fetching ${url} failed with HTTP ${response.status}.`, { url, status: response.status });
  return response;
}

/**
 * Reads models straight from a static folder (`catalog.json` + files). Used for the built-in
 * models as shipped with the app; files are whatever the server returns, so this source is for
 * same-origin assets only — downloads from elsewhere go through the signed store.
 */
export class StaticModelSource implements ModelSource {
  private catalog?: Promise<CatalogEntry[]>;
  constructor(private readonly baseUrl: string, private readonly fetcher: typeof fetch = fetch.bind(globalThis)) {}

  private entries(): Promise<CatalogEntry[]> {
    this.catalog ??= fetchOk(new URL('catalog.json', this.baseUrl).href, this.fetcher)
      .then((r) => r.json())
      .then((json) => CatalogSchema.parse(json).models)
      .catch((error) => {
        this.catalog = undefined;
        throw error;
      });
    return this.catalog;
  }

  async list(): Promise<ModelDescriptor[]> {
    return (await this.entries()).map((e) => this.toDescriptor(e));
  }

  private toDescriptor(e: CatalogEntry): ModelDescriptor {
    return {
      id: e.id,
      version: e.version,
      title: e.title,
      task: e.task,
      batch: e.batch,
      labels: e.labels,
      sizeBytes: e.sizeBytes,
      samples: e.samples.map((s) => ({ ...s, url: new URL(s.url, this.baseUrl).href })),
    };
  }

  async describe(id: string): Promise<ModelDescriptor> {
    const entry = (await this.entries()).find((e) => e.id === id);
    if (!entry) throw new ModelLoadError(`There is no model called "${id}".`, { id });
    return this.toDescriptor(entry);
  }

  async files(id: string): Promise<ModelFiles> {
    const entry = (await this.entries()).find((e) => e.id === id);
    if (!entry) throw new ModelLoadError(`There is no model called "${id}".`, { id });
    const get = (path: string) => fetchOk(new URL(path, this.baseUrl).href, this.fetcher);
    const json = async (path?: string) => (path ? (await get(path)).json() as Promise<unknown> : undefined);
    const [onnx, config, preprocessor, tokenizer, tokenizerConfig] = await Promise.all([
      get(entry.files.onnx).then((r) => r.arrayBuffer()),
      json(entry.files.config),
      json(entry.files.preprocessor),
      json(entry.files.tokenizer),
      json(entry.files.tokenizerConfig),
    ]);
    return { key: `${entry.id}@${entry.version}`, onnx, config, preprocessor, tokenizer, tokenizerConfig };
  }
}
