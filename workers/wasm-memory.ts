import type { WasmMemoryReading } from '../src/runtime/protocol.ts';

/**
 * ORT exposes no public handle on its WebAssembly memory, so this watches WebAssembly
 * instantiation in the worker and keeps (weakly) every Memory it sees in the imports (the
 * threaded build creates a shared memory and imports it) or the exports (the plain build).
 * Install before the first session is created.
 */
const memories = new Set<WeakRef<WebAssembly.Memory>>();
/** Whether any wasm was instantiated yet: before ORT's is, there is no memory to see. */
let instantiated = false;

function collect(...objects: unknown[]): void {
  instantiated = true;
  for (const object of objects) {
    if (!object || typeof object !== 'object') continue;
    for (const value of Object.values(object)) {
      if (value instanceof WebAssembly.Memory) memories.add(new WeakRef(value));
      // Imports are grouped one level deep ({ a: { memory } }).
      else if (value && typeof value === 'object') for (const inner of Object.values(value)) if (inner instanceof WebAssembly.Memory) memories.add(new WeakRef(inner));
    }
  }
}

let installed = false;
export function watchWasmMemory(): void {
  if (installed) return;
  installed = true;
  const { instantiate, instantiateStreaming } = WebAssembly;
  WebAssembly.instantiate = (async (source: BufferSource | WebAssembly.Module, imports?: WebAssembly.Imports) => {
    const result = await instantiate(source, imports);
    // From bytes: { module, instance }; from a compiled Module: the Instance itself.
    const instance = (result as { instance?: WebAssembly.Instance }).instance ?? (result as WebAssembly.Instance);
    collect(imports, instance.exports);
    return result;
  }) as typeof WebAssembly.instantiate;
  if (instantiateStreaming) {
    WebAssembly.instantiateStreaming = async (source, imports) => {
      const result = await instantiateStreaming(source, imports);
      collect(imports, result.instance.exports);
      return result;
    };
  }
}

/** Bytes of every live WebAssembly memory seen; see WasmMemoryReading for the rest. */
export function wasmMemoryBytes(): WasmMemoryReading {
  let total = 0;
  let seen = false;
  for (const ref of memories) {
    const memory = ref.deref();
    if (!memory) {
      memories.delete(ref);
      continue;
    }
    seen = true;
    total += memory.buffer.byteLength;
  }
  if (seen) return total;
  return instantiated ? null : 'starting';
}
