import { IntegrityError, ModelLoadError } from '../errors.ts';
import { labelNamesOf, type LabelName } from '../labels.ts';
import type { ShadowCandidate } from '../release/shadow-runner.ts';
import type { FetchOptions, ModelDescriptor, ModelSource } from '../model-source.ts';
import type { ModelFiles } from '../worker-client.ts';
import { latestReleases } from './catalog.ts';
import { parseManifest, versionKey, type FileRole, type Manifest } from './manifest.ts';
import type { ModelRegistry } from './registry.ts';
import { readVerified, type VerifiedRead } from './verified-read.ts';

/**
 * The models the app runs, read from the signed store: only active versions are listed, and
 * their bytes are re-verified every time they are handed to a worker (registry.readActive).
 */
export class StoreModelSource implements ModelSource {
  private opened?: Promise<ModelRegistry>;
  /** Label names by version key (see labelNames). */
  private readonly names = new Map<string, Promise<LabelName[] | undefined>>();

  /**
   * Takes a promise so start-up can finish installing the built-in models before the first list,
   * or a function that opens the registry on first use (so an unused default store costs nothing).
   */
  constructor(
    private readonly open: Promise<ModelRegistry> | (() => Promise<ModelRegistry>),
    private readonly options: { installOnDemand?: boolean } = {},
  ) {}

  private registry(): Promise<ModelRegistry> {
    this.opened ??= typeof this.open === 'function' ? this.open() : this.open;
    return this.opened;
  }

  /**
   * With `installOnDemand` (signedStore), installs the model from the registry's catalog when no
   * version of it is active yet. The PWA installs only through its Models screen and data policy.
   */
  async prepare(id: string, options: FetchOptions = {}): Promise<void> {
    if (!this.options.installOnDemand) return;
    const registry = await this.registry();
    if (await registry.activeManifest(id)) return;
    const release = latestReleases(await registry.catalog()).get(id);
    if (!release) throw new ModelLoadError(`There is no model called "${id}", installed or in the catalog.`, { id });
    const unsubscribe = registry.subscribe(() => {
      const transfer = registry.activeTransfers().find((t) => t.id === id);
      if (transfer) options.onProgress?.({ phase: 'download', loadedBytes: transfer.progress.bytes, totalBytes: transfer.progress.total });
    });
    try {
      await registry.install(release, options.signal);
    } finally {
      unsubscribe();
    }
  }

  subscribe(listener: () => void): () => void {
    // A store that failed to open changes nothing: each read reports why.
    const unsubscribe = this.registry().then((registry) => registry.subscribe((change) => { if (change === 'store') listener(); }), () => () => undefined);
    return () => void unsubscribe.then((off) => off());
  }

  async list(): Promise<ModelDescriptor[]> {
    const pointers = await (await this.registry()).store.pointers();
    const descriptors = await Promise.all(pointers.map((p) => this.describeOrSkip(p.id)));
    return descriptors.filter((d): d is ModelDescriptor => d !== undefined).sort((a, b) => a.title.localeCompare(b.title));
  }

  private describeOrSkip(id: string): Promise<ModelDescriptor | undefined> {
    return this.describe(id).catch(() => undefined);
  }

  async describe(id: string): Promise<ModelDescriptor> {
    const registry = await this.registry();
    const active = await registry.activeManifest(id);
    if (!active) throw new ModelLoadError(`There is no installed model called "${id}".`, { id });
    const labelNames = await this.labelNames(registry, active.manifest);
    return { ...toDescriptor(active.manifest, active.sourceUrl), ...(labelNames ? { labelNames } : {}) };
  }

  /**
   * The names the version's config.json gives its labels: that one small file read and verified
   * against the signed manifest, once per version (its files never change; the list is read at
   * start and at every store change, and the first request describes its model again). A config
   * that fails its check or does not parse names nothing here; loading the model reports why.
   */
  private labelNames(registry: ModelRegistry, manifest: Manifest): Promise<LabelName[] | undefined> {
    const key = versionKey(manifest);
    let names = this.names.get(key);
    if (!names) {
      names = readVerified(registry.store, { ...manifest, files: manifest.files.filter((f) => f.role === 'config') }).then((read) => {
        const bytes = read.ok ? read.files.get('config') : undefined;
        return bytes && labelNamesOf(JSON.parse(new TextDecoder().decode(bytes)), manifest.labels);
      }).catch(() => undefined);
      this.names.set(key, names);
    }
    return names;
  }

  /**
   * The active version's labels, else (its active version was quarantined or revoked with nothing
   * to hand over to) those of the newest version kept that was installed whole: the one that
   * answered last. Rejected versions are passed over (one that failed its gate never answered;
   * one rolled back had the version it was rolled back to answer after it), and so are unfinished
   * downloads.
   */
  async lastLabels(id: string): Promise<readonly string[] | undefined> {
    const registry = await this.registry();
    const active = await registry.activeManifest(id);
    if (active) return active.manifest.labels;
    const kept = (await registry.store.versions(id))
      .filter((v) => v.status === 'ready' || v.status === 'quarantined' || v.status === 'revoked')
      .sort((a, b) => b.sequence - a.sequence);
    for (const version of kept) {
      const record = await registry.store.manifest(version.key);
      if (record) return parseManifest(new Uint8Array(record.bytes)).labels;
    }
    return undefined;
  }

  async files(id: string): Promise<ModelFiles> {
    const { manifest, read } = await (await this.registry()).readActive(id);
    return modelFiles(manifest, read);
  }

  /** The model's candidate in shadow, if any; its files are re-verified each time they are loaded. */
  async candidate(id: string): Promise<ShadowCandidate | undefined> {
    const registry = await this.registry();
    const manifest = await registry.candidateManifest(id);
    if (!manifest) return undefined;
    return {
      key: versionKey(manifest),
      descriptor: toDescriptor(manifest),
      ...(manifest.shadow ? { policy: manifest.shadow } : {}),
      files: async () => {
        const candidate = await registry.readCandidate(id);
        if (!candidate || versionKey(candidate.manifest) !== versionKey(manifest)) {
          throw new IntegrityError(`The shadow candidate ${manifest.version} of ${id} is no longer available.`, { id });
        }
        return modelFiles(candidate.manifest, candidate.read);
      },
    };
  }
}

/** The worker's view of a verified version (also used to load a candidate for its validation gate). */
export function modelFiles(manifest: Manifest, read: VerifiedRead & { ok: true }): ModelFiles {
  const json = (role: FileRole): unknown => {
    const bytes = read.files.get(role);
    if (!bytes) return undefined;
    try {
      return JSON.parse(new TextDecoder().decode(bytes));
    } catch {
      const file = manifest.files.find((f) => f.role === role)!.path;
      throw new ModelLoadError(`${file} of ${manifest.id} ${manifest.version} is not valid JSON.`, { id: manifest.id, file });
    }
  };
  return {
    key: versionKey(manifest),
    onnx: read.files.get('onnx')!.buffer,
    config: json('config'),
    preprocessor: json('preprocessor'),
    tokenizer: json('tokenizer'),
    tokenizerConfig: json('tokenizer-config'),
  };
}

export function toDescriptor(manifest: Manifest, sourceUrl?: string): ModelDescriptor {
  return {
    id: manifest.id,
    version: manifest.version,
    title: manifest.title,
    task: manifest.task,
    batch: manifest.batch,
    labels: manifest.labels,
    sizeBytes: manifest.files.find((f) => f.role === 'onnx')?.size ?? 0,
    signed: true,
    // Samples live next to the manifest on its server; a sideloaded release has none.
    samples: sourceUrl ? manifest.samples.map((s) => ({ name: s.name, kind: s.kind, url: new URL(s.path, sourceUrl).href })) : [],
  };
}
