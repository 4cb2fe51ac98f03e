/**
 * Backend choice is a pure function of what the device offers, so it can be unit-tested and
 * reported. ORT itself silently falls back from WebGPU to WASM with only a console warning and
 * has no API that says which EP ran, so we decide ourselves and say why.
 */
export type BackendPreference = 'auto' | 'wasm' | 'webgpu';
export type Backend = 'wasm' | 'webgpu';

export interface AdapterSummary {
  /** `requestAdapter()` returned an adapter. */
  available: boolean;
  /** A software adapter (e.g. SwiftShader): correct but far slower than WASM. */
  isFallbackAdapter: boolean;
  vendor: string;
  architecture: string;
  /** Why no adapter, when there is none. */
  unavailableReason?: AdapterProblem;
}

/** Why there is no WebGPU adapter; `detail` is the browser's own message, for diagnostics. */
export type AdapterProblem = { kind: 'no-webgpu' } | { kind: 'null-adapter' } | { kind: 'request-failed'; detail: string };

/**
 * Why a backend runs, as a kind and its parameters: the UI words it in the user's language
 * (see src/app/i18n/runtime-text.ts). `adapter` is the adapter's vendor and architecture;
 * `detail` is the browser's or ORT's own message, for diagnostics.
 */
export type BackendReason =
  | { kind: 'wasm-requested' }
  | { kind: 'no-adapter'; problem: AdapterProblem }
  | { kind: 'webgpu-unavailable'; problem: AdapterProblem }
  | { kind: 'webgpu-requested'; adapter: string; software: boolean }
  | { kind: 'software-adapter'; adapter: string }
  | { kind: 'hardware-adapter'; adapter: string }
  | { kind: 'webgpu-load-failed'; detail: string }
  | { kind: 'webgpu-run-failed'; detail: string }
  | { kind: 'device-lost'; detail: string };

export interface DeviceFacts {
  adapter: AdapterSummary;
  crossOriginIsolated: boolean;
  hardwareConcurrency: number;
}

export interface BackendChoice {
  backend: Backend;
  /** WASM threads (1 when not cross-origin isolated: SharedArrayBuffer is unavailable). */
  threads: number;
  reason: BackendReason;
}

export const NO_ADAPTER: AdapterSummary = {
  available: false,
  isFallbackAdapter: false,
  vendor: '',
  architecture: '',
  unavailableReason: { kind: 'no-webgpu' },
};

/** Threads for the WASM backend; two workers on two cores would fight, so the pool divides. */
export function wasmThreads(facts: Pick<DeviceFacts, 'crossOriginIsolated' | 'hardwareConcurrency'>, workers = 1): number {
  if (!facts.crossOriginIsolated) return 1;
  const cores = Math.max(1, facts.hardwareConcurrency || 1);
  return Math.max(1, Math.min(4, Math.floor(cores / Math.max(1, workers))));
}

export function chooseBackend(preference: BackendPreference, facts: DeviceFacts, workers = 1): BackendChoice {
  const threads = wasmThreads(facts, workers);
  const { adapter } = facts;
  const wasm = (reason: BackendReason): BackendChoice => ({ backend: 'wasm', threads, reason });

  if (preference === 'wasm') return wasm({ kind: 'wasm-requested' });
  if (!adapter.available) {
    const problem = adapter.unavailableReason ?? { kind: 'null-adapter' };
    return wasm(preference === 'webgpu' ? { kind: 'webgpu-unavailable', problem } : { kind: 'no-adapter', problem });
  }
  const name = adapterName(adapter);
  if (preference === 'webgpu') return { backend: 'webgpu', threads, reason: { kind: 'webgpu-requested', adapter: name, software: adapter.isFallbackAdapter } };
  if (adapter.isFallbackAdapter) return wasm({ kind: 'software-adapter', adapter: name });
  return { backend: 'webgpu', threads, reason: { kind: 'hardware-adapter', adapter: name } };
}

/** Vendor and architecture, as the browser names them (empty when it names neither). */
function adapterName(adapter: AdapterSummary): string {
  return [adapter.vendor, adapter.architecture].filter(Boolean).join(' ');
}

/** Minimal structural types so this module compiles without @webgpu/types. */
interface GpuAdapterLike {
  info?: { vendor?: string; architecture?: string; isFallbackAdapter?: boolean };
  isFallbackAdapter?: boolean;
}
interface GpuLike {
  requestAdapter(options?: { powerPreference?: string }): Promise<GpuAdapterLike | null>;
}

/** Asks the browser for a WebGPU adapter; never throws. */
export async function probeAdapter(nav: { gpu?: unknown } = globalThis.navigator as { gpu?: unknown }): Promise<AdapterSummary> {
  const gpu = nav?.gpu as GpuLike | undefined;
  if (!gpu || typeof gpu.requestAdapter !== 'function') return NO_ADAPTER;
  try {
    const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
    if (!adapter) return { ...NO_ADAPTER, unavailableReason: { kind: 'null-adapter' } };
    const info = adapter.info ?? {};
    return {
      available: true,
      isFallbackAdapter: Boolean(info.isFallbackAdapter ?? adapter.isFallbackAdapter),
      vendor: info.vendor ?? '',
      architecture: info.architecture ?? '',
    };
  } catch (error) {
    return { ...NO_ADAPTER, unavailableReason: { kind: 'request-failed', detail: (error as Error).message } };
  }
}
