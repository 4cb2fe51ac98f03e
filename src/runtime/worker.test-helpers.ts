import { expose } from 'comlink';
import { vi } from 'vitest';
import { installErrorTransfer } from './error-transfer.ts';
import { InputError, serializeError } from './errors.ts';
import { wasmThreads, type BackendPreference } from './backend.ts';
import type { ModelDescriptor, ModelSource } from './model-source.ts';
import type { KeptOrtWasm } from './ort-cache.ts';
import type { BatchReport, ClassifyInput, DeviceReport, InferenceWorkerApi, LoadReport, ModelFiles } from './protocol.ts';

/**
 * Test doubles for the page side of the worker boundary, in Node: a Worker made of a
 * MessageChannel (real comlink, real structured cloning and transfer), a LockManager, and a fake
 * inference API whose "model" answers each text with itself as the label.
 */

/** Exclusive Web Locks, enough for the liveness lock: a request is granted when the holder lets go. */
export class FakeLocks {
  private readonly tails = new Map<string, Promise<unknown>>();

  request(name: string, callback: () => unknown): Promise<unknown> {
    const granted = (this.tails.get(name) ?? Promise.resolve()).then(() => callback());
    this.tails.set(name, granted.catch(() => undefined));
    return granted;
  }
}

export interface FakeWorkerLog {
  /** Every worker started, in order. */
  started: FakeInference[];
  /** Called at the start of every classify in any worker; may kill it (`die`) to simulate a crash. */
  onClassify?: (inputs: ClassifyInput[], worker: FakeInference) => void;
  /** Called at the start of every load; a throw fails the load (e.g. ORT could not start). */
  onLoad?: (key: string, worker: FakeInference, files: ModelFiles) => void;
  /** Awaited before a batch is answered: holds it running until the test lets it go. */
  gate?: () => Promise<void>;
}

/** The worker side: records what it was asked, and can die like an OOM-killed worker. */
export class FakeInference implements InferenceWorkerApi {
  readonly loaded = new Set<string>();
  readonly batches: { key: string; texts: string[] }[] = [];
  /** The ORT wasm the page handed over with init. */
  wasm?: KeptOrtWasm;
  /** How many workers the page said share the cores (what splits the WASM threads). */
  splitCoresBy?: number;
  /** A dead worker answers nothing (set directly to hang it without releasing its lock). */
  dead = false;
  private release?: () => void;

  constructor(private readonly locks: FakeLocks, private readonly name: string, private readonly port: MessagePort, private readonly log: FakeWorkerLog) {}

  init(_preference: BackendPreference, workers: number, _threads?: number, wasm?: KeptOrtWasm): Promise<DeviceReport> {
    if (this.dead) return new Promise<never>(() => undefined);
    this.wasm = wasm;
    this.splitCoresBy = workers;
    // As the real worker: hold the liveness lock for as long as this worker lives.
    void this.locks.request(`lantern-alive:${this.name}`, () => new Promise<void>((resolve) => (this.release = resolve)));
    return Promise.resolve({
      adapter: { available: false, isFallbackAdapter: false, vendor: '', architecture: '' },
      crossOriginIsolated: false,
      hardwareConcurrency: 2,
      // As on an isolated 2-core device: the cores split between the workers that share them.
      choice: { backend: 'wasm', threads: wasmThreads({ crossOriginIsolated: true, hardwareConcurrency: 2 }, workers), reason: { kind: 'wasm-requested' } },
      ortVersion: 'test',
    });
  }

  async load(files: ModelFiles): Promise<LoadReport> {
    this.log.onLoad?.(files.key, this, files);
    if (this.dead) return new Promise<never>(() => undefined);
    this.loaded.add(files.key);
    return { key: files.key, backend: 'wasm', reason: { kind: 'wasm-requested' }, threads: 1, createMs: 1, unsureBelow: 0.5, inputNames: ['input_ids'], outputNames: ['logits'] };
  }

  async classify(key: string, inputs: ClassifyInput[], k: number): Promise<BatchReport> {
    this.log.onClassify?.(inputs, this);
    if (this.dead) return new Promise<never>(() => undefined);
    this.batches.push({ key, texts: inputs.map((i) => (i.kind === 'text' ? i.text : '')) });
    await this.log.gate?.();
    const items = inputs.map((input) => input.kind === 'text' && input.text !== ''
      ? { ok: true as const, value: { predictions: [{ label: input.text, score: 1, index: 0 }, { label: 'other', score: 0, index: 1 }].slice(0, k), notes: [], preprocessMs: 0, cached: false } }
      : { ok: false as const, error: serializeError(new InputError('The text is empty.', { reason: 'empty-text' })) });
    return { items, backend: 'wasm', batchSize: inputs.length, inferenceMs: 1, postprocessMs: 0 };
  }

  unload(key: string): Promise<void> {
    // A worker whose thread is held by a run (hung) takes no other message either.
    if (this.dead) return new Promise<never>(() => undefined);
    this.loaded.delete(key);
    return Promise.resolve();
  }

  wasmMemory(): number | null {
    return 1024;
  }

  /** Dies without a word, as a crash or an out-of-memory kill does: only its lock is released. */
  die(): void {
    this.dead = true;
    this.port.close();
    this.release?.();
  }
}

/**
 * Stands in for the browser's `navigator` (Node has no Web Locks): a FakeLocks, through which
 * WorkerClient watches each worker's liveness lock, and 2 cores, as the fake workers report, so
 * Lantern keeps its default backlog workers. Undone by `vi.unstubAllGlobals()`.
 */
export function stubNavigatorLocks(): void {
  vi.stubGlobal('navigator', { locks: new FakeLocks(), hardwareConcurrency: 2 });
}

/** The FakeLocks `stubNavigatorLocks` put on the navigator: the lock manager WorkerClient watches. */
function stubbedLocks(): FakeLocks {
  const locks: unknown = globalThis.navigator?.locks;
  if (!(locks instanceof FakeLocks)) throw new Error('fakeWorkers needs the navigator stubbed first: call stubNavigatorLocks().');
  return locks;
}

/**
 * A `createWorker` for WorkerClient/Lantern whose workers are FakeInference instances. They take
 * their liveness locks from the stubbed navigator's FakeLocks (stubNavigatorLocks), the one
 * WorkerClient watches: with any other, a dead worker would never be noticed.
 */
export function fakeWorkers(): { createWorker: (name: string) => Worker; log: FakeWorkerLog } {
  installErrorTransfer();
  const locks = stubbedLocks();
  const log: FakeWorkerLog = { started: [] };
  const createWorker = (name: string): Worker => {
    const { port1, port2 } = new MessageChannel();
    const inference = new FakeInference(locks, name, port2, log);
    log.started.push(inference);
    expose(inference, port2);
    // The page only uses postMessage, message/error listeners and terminate.
    return Object.assign(port1, { terminate: () => inference.die() }) as unknown as Worker;
  };
  return { createWorker, log };
}

/** A model source with text models whose files are just their key. */
export function fakeSource(ids: string[], version = '1.0.0'): ModelSource & { filesRead: string[] } {
  const filesRead: string[] = [];
  const describe = (id: string): ModelDescriptor => ({ id, version, title: id, task: 'text-classification', batch: 'dynamic', labels: [], sizeBytes: 0, samples: [], signed: true });
  return {
    filesRead,
    list: () => Promise.resolve(ids.map(describe)),
    describe: (id) => Promise.resolve(describe(id)),
    files: (id) => {
      filesRead.push(id);
      return Promise.resolve({ key: `${id}@${version}`, onnx: new ArrayBuffer(8), config: {} });
    },
  };
}
