/**
 * Large typed arrays reused from one image to the next instead of allocated per request.
 * Chromium backs every new large typed array with fresh pages from the OS, and first touching
 * them cost more than the work done in them: measured in Chromium 156 on a 2-core VM, filling a
 * new 800 KB Float32Array took 4.6 ms against 0.5 ms for a reused one (Node: 0.7 against 0.6 ms).
 */

/** One buffer for work that is finished within one synchronous call. */
export class ScratchBuffer {
  private buffer = new Float32Array(0);

  /** `length` values, valid until the next call (old contents are overwritten, not cleared). */
  take(length: number): Float32Array {
    if (this.buffer.length < length) this.buffer = new Float32Array(length);
    return this.buffer.subarray(0, length);
  }
}

/**
 * Arrays that outlive a call: a batch's tensors are made while earlier batches wait for their
 * run, and are given back once their own run has finished; a frame's pixels are copied while
 * another image's may still be in use. Keeps at most `keep` spares.
 */
export class ArrayPool<T extends Float32Array | Uint8ClampedArray> {
  private readonly spares: T[] = [];
  /** Only arrays this pool made are kept: a caller's own array is never handed out to be overwritten. */
  private readonly made = new WeakSet<object>();

  constructor(private readonly Kind: new (length: number) => T, private readonly keep = 4) {}

  /** An array of exactly `length` values with stale contents, or a new (zeroed) one. */
  take(length: number): T {
    const at = this.spares.findIndex((spare) => spare.length === length);
    if (at >= 0) return this.spares.splice(at, 1)[0]!;
    const array = new this.Kind(length);
    this.made.add(array);
    return array;
  }

  /** Takes back arrays this pool made; anything else is ignored. */
  give(arrays: readonly ArrayLike<number>[]): void {
    for (const array of arrays) if (this.isOwn(array) && this.spares.length < this.keep && !this.spares.includes(array)) this.spares.push(array);
  }

  private isOwn(array: ArrayLike<number>): array is T {
    return this.made.has(array);
  }
}
