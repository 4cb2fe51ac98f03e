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

/** The kinds of array a pool reuses: pixels, tensors, int64 token ids, a decoder's planes. */
type PooledArray = Float32Array | Uint8ClampedArray | BigInt64Array | Uint8Array;

/**
 * Arrays that outlive a call: a batch's tensors are made while earlier batches wait for their
 * run, and are given back once their own run has finished; a frame's pixels are copied while
 * another image's may still be in use. A request is served by the smallest spare that holds it
 * (a text batch's size changes with its longest text), as a view of exactly the length asked
 * for. Keeps at most `keep` spares, the largest ones.
 */
export class ArrayPool<T extends PooledArray> {
  private readonly spares: T[] = [];
  /**
   * The whole array behind each view handed out. Only arrays this pool made are taken back: a
   * caller's own array is never handed out to be overwritten.
   */
  private readonly lent = new WeakMap<object, T>();

  constructor(private readonly Kind: new (length: number) => T, private readonly keep = 4) {}

  /** An array of exactly `length` values with stale contents, or a new (zeroed) one. */
  take(length: number): T {
    let best = -1;
    this.spares.forEach((spare, i) => {
      if (spare.length >= length && (best < 0 || spare.length < this.spares[best]!.length)) best = i;
    });
    const whole = best >= 0 ? this.spares.splice(best, 1)[0]! : new this.Kind(length);
    // subarray keeps the kind of its array: a T's view is a T.
    const view = whole.length === length ? whole : (whole.subarray(0, length) as T);
    this.lent.set(view, whole);
    return view;
  }

  /** Takes back arrays this pool handed out; anything else, or an array given twice, is ignored. */
  give(arrays: readonly object[]): void {
    for (const array of arrays) {
      const whole = this.lent.get(array);
      if (!whole) continue;
      this.lent.delete(array);
      this.spares.push(whole);
      if (this.spares.length > this.keep) {
        this.spares.sort((a, b) => b.length - a.length);
        this.spares.length = this.keep;
      }
    }
  }
}
