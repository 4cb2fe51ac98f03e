// A JS re-implementation of BERT "basic tokenization" (BertNormalizer with clean_text,
// handle_chinese_chars, lowercase + strip accents, then BertPreTokenizer), written to follow
// @huggingface/tokenizers 0.2.0 step by step. Used only to COUNT words for the vocabulary;
// all ids the model sees come from the real library (see encode.mjs).

const PUNCT = '\\p{P}\\u0021-\\u002F\\u003A-\\u0040\\u005B-\\u0060\\u007B-\\u007E';
const WORD_RE = new RegExp(`[^\\s${PUNCT}]+|[${PUNCT}]`, 'gu');

function isChineseChar(cp) {
  return (cp >= 0x4e00 && cp <= 0x9fff) || (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x20000 && cp <= 0x2a6df) || (cp >= 0x2a700 && cp <= 0x2b73f) ||
    (cp >= 0x2b740 && cp <= 0x2b81f) || (cp >= 0x2b820 && cp <= 0x2ceaf) ||
    (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0x2f800 && cp <= 0x2fa1f);
}

function isControl(ch) {
  if (ch === '\t' || ch === '\n' || ch === '\r') return false;
  // Same (loosely anchored) test as the library.
  return /^\p{Cc}|\p{Cf}|\p{Co}|\p{Cs}$/u.test(ch);
}

export function normalize(text) {
  // clean_text: drop NUL, U+FFFD and control chars, map whitespace to ' '
  let out = '';
  for (const ch of text) {
    const cp = ch.charCodeAt(0);
    if (cp === 0 || cp === 0xfffd || isControl(ch)) continue;
    out += /^\s$/.test(ch) ? ' ' : ch;
  }
  // handle_chinese_chars (per UTF-16 unit, as the library does)
  let cjk = '';
  for (let i = 0; i < out.length; i++) {
    const ch = out[i];
    cjk += isChineseChar(ch.charCodeAt(0)) ? ` ${ch} ` : ch;
  }
  // lowercase, then strip accents (NFD, drop nonspacing marks)
  return cjk.toLowerCase().normalize('NFD').replace(/\p{Mn}/gu, '');
}

/** Words (pre-tokens) of a text: whitespace-separated runs, punctuation chars on their own. */
export function basicTokenize(text) {
  return normalize(text).trim().match(WORD_RE) || [];
}
