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
  unavailableReason?: string;
}

export interface DeviceFacts {
  adapter: AdapterSummary;
  crossOriginIsolated: boolean;
  hardwareConcurrency: number;
}

export interface BackendChoice {
  backend: Backend;
  /** WASM threads (1 when not cross-origin isolated: SharedArrayBuffer is unavailable). */
  threads: number;
  reason: string;
}

export const NO_ADAPTER: AdapterSummary = {
  available: false,
  isFallbackAdapter: false,
  vendor: '',
  architecture: '',
  unavailableReason: 'navigator.gpu is missing',
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
  const wasm = (reason: string): BackendChoice => ({ backend: 'wasm', threads, reason });

  if (preference === 'wasm') return wasm('WASM was requested.');
  if (!adapter.available) {
    const why = adapter.unavailableReason ?? 'no WebGPU adapter';
    return wasm(preference === 'webgpu' ? `WebGPU was requested but is unavailable (${why}); using WASM.` : `No WebGPU adapter (${why}); using WASM.`);
  }
  if (preference === 'webgpu') {
    const kind = adapter.isFallbackAdapter ? 'software' : 'hardware';
    return { backend: 'webgpu', threads, reason: `WebGPU was requested (${kind} adapter: ${describeAdapter(adapter)}).` };
  }
  if (adapter.isFallbackAdapter) {
    return wasm(`Only a software WebGPU adapter (${describeAdapter(adapter)}), which is slower than WASM; using WASM.`);
  }
  return { backend: 'webgpu', threads, reason: `Hardware WebGPU adapter (${describeAdapter(adapter)}).` };
}

function describeAdapter(adapter: AdapterSummary): string {
  return [adapter.vendor, adapter.architecture].filter(Boolean).join(' ') || 'unknown adapter';
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
    if (!adapter) return { ...NO_ADAPTER, unavailableReason: 'requestAdapter() returned null' };
    const info = adapter.info ?? {};
    return {
      available: true,
      isFallbackAdapter: Boolean(info.isFallbackAdapter ?? adapter.isFallbackAdapter),
      vendor: info.vendor ?? '',
      architecture: info.architecture ?? '',
    };
  } catch (error) {
    return { ...NO_ADAPTER, unavailableReason: `requestAdapter() failed: ${(error as Error).message}` };
  }
}
