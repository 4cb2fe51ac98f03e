/**
 * A vocabulary's ASCII entries as a trie, walked one character code at a time, and as a table
 * of whole entries, looked up by a word's place in the text.
 *
 * Why not the vocabulary Map: WordPiece looks up every word, and every piece of a split word,
 * by a string the lookup must first cut out of the text (and lowercase), then hash. Walking a
 * trie reads the text's character codes where they are, and one walk finds the longest match
 * that WordPiece's greedy split wants. Edges live in one open-addressing hash table of typed
 * arrays (key: node × 128 + character), so a step is a multiply and a probe or two. Most words
 * of a text are whole entries, though, and a walk pays a probe of a large table per character:
 * `whole` finds such a word with one probe and one comparison.
 */
export class VocabTrie {
  static readonly ROOT = 0;
  /** Per node, its vocabulary id, or -1 when no entry ends there. */
  private readonly ids: number[] = [-1];
  /** Edge keys (node × 128 + character, plus one so that 0 means an empty cell), and where each leads. */
  private keys = new Int32Array(1024);
  private targets = new Int32Array(1024);
  /** Whole entries by hash (open addressing, at most half full): each cell's hash, id and text. */
  private readonly wholeHashes: Int32Array;
  private readonly wholeIds: Int32Array;
  private readonly wholeTexts: string[];

  /** Entries with any character outside ASCII are left out: the fast path never looks them up. */
  constructor(vocab: Iterable<readonly [string, number]>) {
    const entries: [string, number][] = [];
    for (const [token, id] of vocab) {
      if (!/^[\x00-\x7f]+$/.test(token)) continue;
      let node = VocabTrie.ROOT;
      for (let i = 0; i < token.length; i++) node = this.childOrNew(node, token.charCodeAt(i));
      this.ids[node] = id;
      entries.push([token, id]);
    }
    const size = 2 ** Math.ceil(Math.log2(2 * entries.length + 2));
    this.wholeHashes = new Int32Array(size);
    this.wholeIds = new Int32Array(size).fill(-1);
    this.wholeTexts = new Array<string>(size).fill('');
    for (const [token, id] of entries) {
      const hash = textHash(token, 0, token.length, 0);
      let cell = hash & (size - 1);
      while (this.wholeIds[cell] !== -1 && this.wholeTexts[cell] !== token) cell = (cell + 1) & (size - 1);
      this.wholeHashes[cell] = hash;
      this.wholeIds[cell] = id;
      this.wholeTexts[cell] = token;
    }
  }

  /**
   * The id of the entry that is exactly `text[start, end)` (ASCII, case folded as the walk's
   * codes are: see foldCase), or -1.
   */
  whole(text: string, start: number, end: number, caseBit: number): number {
    const hash = textHash(text, start, end, caseBit);
    const mask = this.wholeIds.length - 1;
    for (let cell = hash & mask; this.wholeIds[cell] !== -1; cell = (cell + 1) & mask) {
      if (this.wholeHashes[cell] === hash && sameText(this.wholeTexts[cell]!, text, start, end, caseBit)) return this.wholeIds[cell]!;
    }
    return -1;
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

/**
 * The character code the vocabulary is looked up by: `caseBit` (32 when the normaliser
 * lowercases, else 0) OR-ed into A–Z turns them into a–z.
 */
export function foldCase(code: number, caseBit: number): number {
  return code >= 65 && code <= 90 ? code | caseBit : code;
}

/** FNV-1a over `text[start, end)`, case folded. */
function textHash(text: string, start: number, end: number, caseBit: number): number {
  let hash = 0x811c9dc5;
  for (let i = start; i < end; i++) {
    hash = Math.imul(hash ^ foldCase(text.charCodeAt(i), caseBit), 0x01000193);
  }
  return hash | 0;
}

function sameText(entry: string, text: string, start: number, end: number, caseBit: number): boolean {
  if (entry.length !== end - start) return false;
  for (let i = 0; i < entry.length; i++) if (entry.charCodeAt(i) !== foldCase(text.charCodeAt(start + i), caseBit)) return false;
  return true;
}
