/**
 * Runtime defaults sized to the device. A phone with 2 GB of RAM or 2 cores runs out of
 * memory with 32-input batches and gains nothing from threads competing with the UI.
 * `navigator.deviceMemory` is Chromium-only and capped (0.25–8); absent means "unknown", not low.
 */
export interface DeviceHints {
  deviceMemory?: number;
  hardwareConcurrency?: number;
}

export interface RuntimeDefaults {
  lowEnd: boolean;
  maxBatch: number;
  /** WASM threads of the first worker; undefined gives it every core. */
  threads?: number;
  /** Workers added under sustained load (each is another ORT instance in memory); undefined: the runtime's default. */
  backlogWorkers?: number;
  maxQueued: number;
  metricsWindowMs: number;
}

const LOW_END_MEMORY_GB = 2;
const LOW_END_CORES = 2;
/** Memory at or under which a 2-core device counts as low-end. */
const LOW_END_PAIRED_MEMORY_GB = 4;

/**
 * Little memory alone makes a device low-end; few cores only together with modest memory
 * (a 2-core laptop or VM with 8 GB is not a phone, and small batches would halve its throughput).
 */
export function isLowEnd(hints: DeviceHints): boolean {
  const memory = hints.deviceMemory;
  const cores = hints.hardwareConcurrency;
  if (memory !== undefined && memory <= LOW_END_MEMORY_GB) return true;
  if (cores !== undefined && cores <= 1) return true;
  return cores !== undefined && cores <= LOW_END_CORES && (memory ?? LOW_END_PAIRED_MEMORY_GB) <= LOW_END_PAIRED_MEMORY_GB;
}

export function runtimeDefaults(hints: DeviceHints): RuntimeDefaults {
  return isLowEnd(hints)
    ? { lowEnd: true, maxBatch: 4, threads: 1, backlogWorkers: 0, maxQueued: 64, metricsWindowMs: 60_000 }
    : { lowEnd: false, maxBatch: 32, maxQueued: 256, metricsWindowMs: 5 * 60_000 };
}
