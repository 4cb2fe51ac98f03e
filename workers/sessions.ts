import { downloadWasm, loadOrt, ortApi, ortFiles, releaseWasmBinary, startedFromKeptCopy, type ort, type OrtBuild } from './ort.ts';
import { dropDamagedOrtCopy, keepOrtOffline } from './ort-offline.ts';
import { chooseBackend, probeAdapter, type Backend, type BackendPreference, type BackendReason } from '../src/runtime/backend.ts';
import { DeviceLostError, LanternError, ModelLoadError, ModelRunError, RuntimeUnavailableError } from '../src/runtime/errors.ts';
import type { KeptOrtWasm } from '../src/runtime/ort-cache.ts';
import type { DeviceReport } from '../src/runtime/protocol.ts';


type DeviceLost = Extract<BackendReason, { kind: 'device-lost' }>;

/** The loss in words, for the error's (diagnostic) message. */
const lostMessage = (lost: DeviceLost) => `The WebGPU device was lost (${lost.detail || 'no reason given'})`;

/** ONNX bytes of `y = Identity(x)` (opset 13, 77 bytes), written with the onnx Python package. */
const WARM_UP_MODEL = Uint8Array.from(atob('CAcSB2xhbnRlcm46OgoQCgF4EgF5IghJZGVudGl0eRIEd2FybVoPCgF4EgoKCAgBEgQKAggBYg8KAXkSCgoICAESBAoCCAFCBAoAEA0='), (c) => c.charCodeAt(0));

/** Calls into ORT that must not overlap take turns in a lane: `turn` settles when the last one has. */
interface Lane {
  turn: Promise<void>;
}

/** One model's ORT session and the backend it runs on; `run` may move it to WASM. */
export interface SessionHandle {
  session: ort.InferenceSession;
  backend: Backend;
  /** Kept to rebuild the session on WASM after a WebGPU failure. */
  readonly onnx: ArrayBuffer;
  /** Where this session's calls wait their turn (see `Sessions.gpuLane`). */
  readonly lane: Lane;
}

/** What the engine uses of Sessions (a seam for unit tests). */
export type SessionHost = Pick<Sessions, 'init' | 'requireDevice' | 'reason' | 'open' | 'run' | 'close'>;

/**
 * Owns ORT's global state and the backend of every session: the device choice, WebGPU → WASM
 * fallback at load and at run time, and GPU device loss. Knows nothing about tasks.
 */
export class Sessions {
  private device?: DeviceReport;
  /** ORT's start (see warmUp): undefined once it started, else why it could not. */
  private warm?: Promise<Error | undefined>;
  private gpuLost?: DeviceLost;
  private deviceLost?: Promise<DeviceLost>;
  /**
   * One lane for every ORT call in this worker when it loaded the WebGPU build. That build is
   * compiled with asyncify: its wasm can be suspended inside one call at a time, and two models'
   * calls overlapping (a load during another model's run, two batches of two models) never
   * settle — measured on SwiftShader, where each alone answers. The WASM build only needs each
   * session's own runs in turn, so there every session gets a lane of its own.
   */
  private gpuLane?: Lane;

  /**
   * `onRuntimeDownload`: hears the decoded bytes of ORT's wasm as they arrive when this device
   * keeps no copy yet (a first visit), for the page to show; without it, ORT fetches the wasm itself.
   */
  async init(preference: BackendPreference, workers: number, threads?: number, kept?: KeptOrtWasm, onRuntimeDownload?: (loadedBytes: number) => void): Promise<DeviceReport> {
    if (this.device) return this.device;
    const adapter = await probeAdapter();
    const facts = { adapter, crossOriginIsolated: self.crossOriginIsolated, hardwareConcurrency: navigator.hardwareConcurrency };
    const chosen = chooseBackend(preference, facts, workers);
    const choice = threads && facts.crossOriginIsolated ? { ...chosen, threads } : chosen;
    // The build follows the choice: a device without a usable adapter never downloads the WebGPU one.
    const ort = await loadOrt(choice.backend, kept);
    if (choice.backend === 'webgpu') this.gpuLane = { turn: Promise.resolve() };
    // ORT reads these once, when its wasm starts: they must be set before the first session.
    ort.env.wasm.numThreads = choice.threads;
    ort.env.wasm.proxy = false;
    ort.env.logLevel = 'error';
    this.device = { adapter, crossOriginIsolated: facts.crossOriginIsolated, hardwareConcurrency: facts.hardwareConcurrency, choice, ortVersion: ort.env.versions.web ?? 'unknown' };
    const warm = (this.warm = this.warmUp(choice.backend, onRuntimeDownload));
    // Once ORT has started (warm-up fetched its wasm), keep this build for offline starts. Best
    // effort: if storage refuses, the app still works online and the next start tries again.
    void warm.then((failure) => (failure ? undefined : keepOrtOffline(ortFiles(choice.backend)))).catch(() => undefined);
    return this.device;
  }

  /**
   * Starts ORT's wasm (download, compile, threads) as soon as the worker exists, so it overlaps
   * with the page opening the model store instead of following it. ORT has no init API: a
   * session on a one-node graph is the cheapest way to trigger it.
   */
  private async warmUp(build: OrtBuild, onRuntimeDownload?: (loadedBytes: number) => void): Promise<Error | undefined> {
    try {
      if (onRuntimeDownload) await downloadWasm(build, onRuntimeDownload);
      await this.inTurn(this.gpuLane ?? { turn: Promise.resolve() }, async () => {
        const session = await ortApi().InferenceSession.create(WARM_UP_MODEL, { executionProviders: ['wasm'] });
        await session.release();
      });
      return undefined;
    } catch (error) {
      // ORT refuses a second start in the same worker. When it started from a damaged kept copy,
      // the copy is dropped and this worker ends without answering anything more (an answer
      // could still overtake its end): the page learns of the end from the liveness lock and
      // retries the request in a fresh worker, which downloads the build again. Otherwise loads
      // report the failure (RuntimeUnavailableError), and the page replaces this worker.
      if (await dropDamagedOrtCopy(ortFiles(build)).catch(() => false) && startedFromKeptCopy()) {
        self.close();
        return new Promise<never>(() => undefined);
      }
      return error instanceof Error ? error : new Error(String(error));
    } finally {
      releaseWasmBinary();
    }
  }

  requireDevice(): DeviceReport {
    if (!this.device) throw new LanternError('The inference worker was used before init().');
    return this.device;
  }

  /** Why a session runs where it does, for the load report. */
  reason(backend: Backend): BackendReason {
    const device = this.requireDevice();
    return backend === device.choice.backend ? device.choice.reason : (this.gpuLost ?? { kind: 'webgpu-load-failed', detail: '' });
  }

  /** Creates a session on the chosen backend, falling back to WASM when WebGPU cannot load it. */
  async open(key: string, onnx: ArrayBuffer): Promise<{ handle: SessionHandle; fallback?: BackendReason }> {
    const device = this.requireDevice();
    const failure = await this.warm;
    if (failure) throw new RuntimeUnavailableError(`ONNX Runtime could not start: ${failure.message}`);
    const backend: Backend = this.gpuLost ? 'wasm' : device.choice.backend;
    const lane = this.gpuLane ?? { turn: Promise.resolve() };
    try {
      return { handle: { session: await this.inTurn(lane, () => this.create(onnx, backend)), backend, onnx, lane } };
    } catch (error) {
      if (backend !== 'webgpu') throw new ModelLoadError(`The model could not be loaded: ${(error as Error).message}`, { key });
      const fallback: BackendReason = { kind: 'webgpu-load-failed', detail: (error as Error).message };
      try {
        return { handle: { session: await this.inTurn(lane, () => this.create(onnx, 'wasm')), backend: 'wasm', onnx, lane }, fallback };
      } catch (wasmError) {
        throw new ModelLoadError(`The model could not be loaded: ${(wasmError as Error).message}`, { key });
      }
    }
  }

  private async create(bytes: ArrayBuffer, backend: Backend): Promise<ort.InferenceSession> {
    const session = await ortApi().InferenceSession.create(new Uint8Array(bytes), {
      executionProviders: [backend],
      graphOptimizationLevel: 'all',
    });
    if (backend === 'webgpu') await this.watchDevice();
    return session;
  }

  /** A lost GPU device (driver reset, `device.destroy()`) sends every later session to WASM. */
  private async watchDevice(): Promise<void> {
    const device = (await ortApi().env.webgpu.device) as { lost?: Promise<{ message?: string }> } | undefined;
    this.deviceLost = device?.lost?.then((info) => {
      this.gpuLost = { kind: 'device-lost', detail: info?.message ?? '' };
      return this.gpuLost;
    });
  }

  /**
   * Why a WebGPU run failed. A destroyed device fails the run (a buffer map) and resolves
   * `device.lost` in either order; give the loss a moment so the user sees the real cause.
   */
  private async gpuFailureReason(error: unknown): Promise<string> {
    const settle = new Promise<undefined>((resolve) => setTimeout(resolve, 100));
    const lost = this.gpuLost ?? (this.deviceLost ? await Promise.race([this.deviceLost, settle]) : undefined);
    return lost ? lostMessage(lost) : (error as Error).message;
  }

  /**
   * Runs `feeds` and returns the one output asked for. A WebGPU failure rebuilds the session on
   * WASM and retries once; `fallback` then says why.
   */
  async run(handle: SessionHandle, feeds: Record<string, ort.Tensor>, outputName: string): Promise<{ output: ort.Tensor; fallback?: BackendReason }> {
    // The page keeps two batches in flight per worker; ORT does not support concurrent runs of
    // one session (WebGPU's are truly asynchronous), so they queue in the session's lane.
    return this.inTurn(handle.lane, () => this.runInTurn(handle, feeds, outputName)).catch((error: unknown) => {
      // ONNX Runtime's own error: the graph failed on inputs shaped as it declares them.
      throw error instanceof LanternError ? error : new ModelRunError(`The model failed to run: ${(error as Error).message}`, {}, { cause: error });
    });
  }

  /** Frees a session, in its lane: the release is a call into ORT like any other. */
  close(handle: SessionHandle): Promise<void> {
    return this.inTurn(handle.lane, () => handle.session.release());
  }

  /** Runs `call` once the lane's previous call has settled (whatever its outcome). */
  private async inTurn<T>(lane: Lane, call: () => Promise<T>): Promise<T> {
    const previous = lane.turn;
    let done!: () => void;
    lane.turn = new Promise<void>((resolve) => (done = resolve));
    await previous;
    try {
      return await call();
    } finally {
      done();
    }
  }

  private async runInTurn(handle: SessionHandle, feeds: Record<string, ort.Tensor>, outputName: string): Promise<{ output: ort.Tensor; fallback?: BackendReason }> {
    try {
      return { output: await this.runOnce(handle, feeds, outputName) };
    } catch (error) {
      if (handle.backend !== 'webgpu') throw error;
      const fallback: BackendReason = { kind: 'webgpu-run-failed', detail: await this.gpuFailureReason(error) };
      await handle.session.release().catch(() => undefined);
      handle.session = await this.create(handle.onnx, 'wasm');
      handle.backend = 'wasm';
      return { output: await this.runOnce(handle, feeds, outputName), fallback };
    }
  }

  private async runOnce(handle: SessionHandle, feeds: Record<string, ort.Tensor>, outputName: string): Promise<ort.Tensor> {
    if (handle.backend === 'webgpu' && this.gpuLost) throw new DeviceLostError(lostMessage(this.gpuLost));
    const results = await handle.session.run(feeds, [outputName]);
    const output = results[outputName];
    if (!output) throw new ModelRunError(`The model returned no "${outputName}" output.`);
    return output;
  }
}
