import type { ModelDescriptor, ModelSource } from '../src/runtime/model-source.ts';
import type { ModelFiles } from '../src/runtime/worker-client.ts';

/**
 * Benchmark-only model source: plain files from this origin, no store. The benchmark measures
 * scheduling and inference; start-up through the real signed store is measured on the app.
 */
interface Entry extends Omit<ModelDescriptor, 'samples' | 'signed'> {
  files: { config: string; onnx: string; preprocessor?: string; tokenizer?: string; tokenizerConfig?: string };
}

export class StaticModelSource implements ModelSource {
  private entries?: Promise<Entry[]>;
  constructor(private readonly base: string) {}

  private all(): Promise<Entry[]> {
    this.entries ??= fetch(new URL('catalog.json', this.base)).then(async (r) => ((await r.json()) as { models: Entry[] }).models);
    return this.entries;
  }
  private async entry(id: string): Promise<Entry> {
    const found = (await this.all()).find((e) => e.id === id);
    if (!found) throw new Error(`no model ${id}`);
    return found;
  }
  async list(): Promise<ModelDescriptor[]> {
    return (await this.all()).map(({ files: _files, ...rest }) => ({ ...rest, samples: [], signed: false }));
  }
  async describe(id: string): Promise<ModelDescriptor> {
    const { files: _files, ...rest } = await this.entry(id);
    return { ...rest, samples: [], signed: false };
  }
  async files(id: string): Promise<ModelFiles> {
    const e = await this.entry(id);
    const get = (path: string) => fetch(new URL(path, this.base));
    const json = async (path?: string) => (path ? ((await get(path)).json() as Promise<unknown>) : undefined);
    return {
      key: `${e.id}@${e.version}`,
      onnx: await (await get(e.files.onnx)).arrayBuffer(),
      config: await json(e.files.config),
      preprocessor: await json(e.files.preprocessor),
      tokenizer: await json(e.files.tokenizer),
      tokenizerConfig: await json(e.files.tokenizerConfig),
    };
  }
}
