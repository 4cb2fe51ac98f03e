import { describe, expect, it } from 'vitest';
import { VocabTrie } from './vocab-trie.ts';

/** The entry's id by walking it code by code, as the tokeniser does. */
function lookup(trie: VocabTrie, text: string): number {
  const node = trie.walk(text);
  return node < 0 ? -1 : trie.id(node);
}

describe('VocabTrie', () => {
  it('finds every ASCII entry, and only entries', () => {
    const trie = new VocabTrie([['a', 1], ['ab', 2], ['abc', 3], ['##b', 4], ['[UNK]', 0]]);
    expect(['a', 'ab', 'abc', '##b', '[UNK]'].map((t) => lookup(trie, t))).toEqual([1, 2, 3, 4, 0]);
    // Prefixes of entries are nodes without an id; anything else is no node at all.
    expect(trie.walk('##')).toBeGreaterThan(0);
    expect(lookup(trie, '##')).toBe(-1);
    expect(trie.walk('abcd')).toBe(-1);
    expect(trie.walk('b')).toBe(-1);
    expect(trie.child(VocabTrie.ROOT, 'z'.charCodeAt(0))).toBe(-1);
  });

  it('leaves out entries with non-ASCII characters, whose ASCII prefixes stay unknown', () => {
    const trie = new VocabTrie([['café', 5], ['caf', 6], ['日本', 7]]);
    expect(lookup(trie, 'caf')).toBe(6);
    expect(trie.walk('café')).toBe(-1);
    expect(trie.walk('日本')).toBe(-1);
  });

  it('keeps every entry through the table growing many times over', () => {
    const entries = Array.from({ length: 20_000 }, (_, i) => [`w${i.toString(36)}x${(i * 7919).toString(36)}`, i] as const);
    const trie = new VocabTrie(entries);
    expect(entries.every(([token, id]) => lookup(trie, token) === id)).toBe(true);
    expect(lookup(trie, 'w0x1')).toBe(-1);
  });
});
