/**
 * ORT exposes no public handle on its WebAssembly memory, so this watches WebAssembly
 * instantiation in the worker and keeps (weakly) every Memory it sees in the imports (the
 * threaded build creates a shared memory and imports it) or the exports (the plain build).
 * Install before the first session is created; reports null when no memory was seen.
 */
const memories = new Set<WeakRef<WebAssembly.Memory>>();

function collect(...objects: unknown[]): void {
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

/** Bytes of every live WebAssembly memory seen, or null if none was seen (nothing to report). */
export function wasmMemoryBytes(): number | null {
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
  return seen ? total : null;
}
