/**
 * A vocabulary's ASCII entries as a trie, walked one character code at a time.
 *
 * Why not the vocabulary Map: WordPiece looks up every word, and every piece of a split word,
 * by a string the lookup must first cut out of the text (and lowercase), then hash. Walking a
 * trie reads the text's character codes where they are, and one walk finds the longest match
 * that WordPiece's greedy split wants. Edges live in one open-addressing hash table of typed
 * arrays (key: node × 128 + character), so a step is a multiply and a probe or two.
 */
export class VocabTrie {
  static readonly ROOT = 0;
  /** Per node, its vocabulary id, or -1 when no entry ends there. */
  private readonly ids: number[] = [-1];
  /** Edge keys (node × 128 + character, plus one so that 0 means an empty cell), and where each leads. */
  private keys = new Int32Array(1024);
  private targets = new Int32Array(1024);

  /** Entries with any character outside ASCII are left out: the fast path never looks them up. */
  constructor(vocab: Iterable<readonly [string, number]>) {
    for (const [token, id] of vocab) {
      if (!/^[\x00-\x7f]+$/.test(token)) continue;
      let node = VocabTrie.ROOT;
      for (let i = 0; i < token.length; i++) node = this.childOrNew(node, token.charCodeAt(i));
      this.ids[node] = id;
    }
  }

  /** The node reached from `node` (not -1) by the ASCII character `code`, or -1. */
  child(node: number, code: number): number {
    const key = node * 128 + code + 1;
    const mask = this.keys.length - 1;
    for (let cell = hash(key) & mask; ; cell = (cell + 1) & mask) {
      const found = this.keys[cell]!;
      if (found === key) return this.targets[cell]!;
      if (found === 0) return -1;
    }
  }

  /** The node reached from the root by `text`, or -1. */
  walk(text: string): number {
    let node = VocabTrie.ROOT;
    for (let i = 0; i < text.length && node >= 0; i++) node = text.charCodeAt(i) < 128 ? this.child(node, text.charCodeAt(i)) : -1;
    return node;
  }

  /** The vocabulary id of the entry ending at `node` (not -1), or -1. */
  id(node: number): number {
    return this.ids[node]!;
  }

  private childOrNew(node: number, code: number): number {
    const existing = this.child(node, code);
    if (existing >= 0) return existing;
    // Keep the table at most half full (one edge per node but the root), so probes stay short.
    if (2 * this.ids.length > this.keys.length) this.grow();
    const next = this.ids.length;
    this.ids.push(-1);
    this.place(node * 128 + code + 1, next);
    return next;
  }

  private place(key: number, target: number): void {
    const mask = this.keys.length - 1;
    let cell = hash(key) & mask;
    while (this.keys[cell] !== 0) cell = (cell + 1) & mask;
    this.keys[cell] = key;
    this.targets[cell] = target;
  }

  private grow(): void {
    const { keys, targets } = this;
    this.keys = new Int32Array(keys.length * 2);
    this.targets = new Int32Array(keys.length * 2);
    for (let cell = 0; cell < keys.length; cell++) if (keys[cell] !== 0) this.place(keys[cell]!, targets[cell]!);
  }
}

/** Fibonacci hashing: spreads consecutive keys (siblings differ by one) across the table. */
const hash = (key: number) => Math.imul(key, 0x9e3779b1) >>> 7;
