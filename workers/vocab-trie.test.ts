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

  it('finds whole entries where they lie in a text, folding case as asked, and nothing else', () => {
    const trie = new VocabTrie([['free', 1], ['prize', 2], ['Win', 3], ['##ze', 4], ['caf\u00e9', 5]]);
    const text = 'Win a FREE prize, prizes';
    const at = (word: string, from = 0) => [text.indexOf(word, from), text.indexOf(word, from) + word.length] as const;
    expect(trie.whole(text, ...at('Win'), 0)).toBe(3);
    expect(trie.whole(text, ...at('Win'), 32)).toBe(-1);
    expect(trie.whole(text, ...at('FREE'), 32)).toBe(1);
    expect(trie.whole(text, ...at('FREE'), 0)).toBe(-1);
    expect(trie.whole(text, ...at('prize'), 32)).toBe(2);
    // A prefix or an extension of an entry is not the entry.
    expect(trie.whole(text, text.indexOf('prizes'), text.indexOf('prizes') + 4, 32)).toBe(-1);
    expect(trie.whole(text, ...at('prizes'), 32)).toBe(-1);
    expect(trie.whole('##ze', 0, 4, 0)).toBe(4);
    expect(trie.whole('caf', 0, 3, 0)).toBe(-1);
  });

  it('tells apart many entries whose hashes share a cell', () => {
    const entries = Array.from({ length: 20_000 }, (_, i) => [`w${i.toString(36)}`, i] as const);
    const trie = new VocabTrie(entries);
    expect(entries.every(([token, id]) => trie.whole(`(${token})`, 1, token.length + 1, 0) === id)).toBe(true);
    expect(trie.whole('wzzzzz', 0, 6, 0)).toBe(-1);
  });

  it('keeps every entry through the table growing many times over', () => {
    const entries = Array.from({ length: 20_000 }, (_, i) => [`w${i.toString(36)}x${(i * 7919).toString(36)}`, i] as const);
    const trie = new VocabTrie(entries);
    expect(entries.every(([token, id]) => lookup(trie, token) === id)).toBe(true);
    expect(lookup(trie, 'w0x1')).toBe(-1);
  });
});
