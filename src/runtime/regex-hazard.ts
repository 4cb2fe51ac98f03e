/**
 * The regular expressions a tokenizer.json asks the worker to run (`{ "Regex": "…" }` patterns of
 * its normalizers and pre-tokenizers) run on the user's text, synchronously, in the worker: one
 * that backtracks exponentially holds the worker for minutes on a single long word. A signed
 * release may carry any pattern, so the device refuses the shape that causes it: a repeated group
 * (`*`, `+`, `{n,}`, `{n,m}` with m > 1) whose body can itself match in more than one way (it
 * holds an alternation or a quantifier), as in `(a+)+` or `(?:[a-z]|[a-z])+`. The patterns hub
 * tokenizers use (GPT-2's, cl100k's, ` {2,}`...) repeat characters and classes, not such groups.
 *
 * Written here because no maintained library fits: `recheck`, which decides the question fully,
 * is megabytes of compiled Scala for the worker, and `safe-regex2` checks nested quantifiers only
 * (it passes `(a|a)+`). Polynomial backtracking (`\s*\s*$` on a long run of spaces) is not
 * refused; the text is cut to the model's token budget before it is tokenised.
 */

/** What is wrong with `pattern` (a sentence), or undefined when it has no repeated ambiguous group. */
export function regexHazard(pattern: string): string | undefined {
  /** For each open group: whether its body so far holds an alternation or a quantifier. */
  const open: boolean[] = [];
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      i++; // An escaped character is a literal (or a class like \p{L}, \s): never a group or quantifier.
      if (pattern[i] === 'p' || pattern[i] === 'P') i = skipBraces(pattern, i + 1);
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') {
      inClass = true;
      if (pattern[i + 1] === ']') i++; // `[]…]`: a literal ] first in the class.
      continue;
    }
    if (c === '(') {
      open.push(false);
      continue;
    }
    if (c === ')') {
      const ambiguous = open.pop() ?? false;
      const repeated = repeats(pattern, i + 1);
      if (ambiguous && repeated) return `the group ending at character ${i + 1} is repeated and can match the same text in more than one way, which backtracks without bound on a long word`;
      // A group that is itself repeated or ambiguous makes the group around it ambiguous.
      if (open.length > 0 && (ambiguous || repeated || quantifierAt(pattern, i + 1))) open[open.length - 1] = true;
      continue;
    }
    if (open.length > 0 && (c === '|' || quantifierAt(pattern, i))) open[open.length - 1] = true;
  }
  return undefined;
}

/** Whether a quantifier that repeats (`*`, `+`, `{n,}`, `{n,m}` with m > 1) starts at `i`. */
function repeats(pattern: string, i: number): boolean {
  const c = pattern[i];
  if (c === '*' || c === '+') return true;
  const bounds = c === '{' ? /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i)) : null;
  if (!bounds) return false;
  if (bounds[2] === undefined) return Number(bounds[1]) > 1;
  return bounds[3] === '' || Number(bounds[3]) > 1;
}

/** Whether any quantifier (one that repeats, or `?`) starts at `i`; `(?` opens a group, not this. */
function quantifierAt(pattern: string, i: number): boolean {
  return (pattern[i] === '?' && pattern[i - 1] !== '(') || repeats(pattern, i);
}

/** The index of the `}` closing a `{…}` that starts at `i`, or i - 1 when none starts there. */
function skipBraces(pattern: string, i: number): number {
  if (pattern[i] !== '{') return i - 1;
  const end = pattern.indexOf('}', i);
  return end < 0 ? pattern.length : end;
}

/** Deeper than any tokenizer.json (a Sequence of normalizers is 3–4 levels): a hostile file's nesting ends here. */
const MAX_DEPTH = 64;

/**
 * What is wrong with the first unsafe `{ "Regex": … }` pattern of a tokenizer.json, at any depth
 * (its vocabulary and merges are data, never patterns, and are not walked), or undefined.
 */
export function tokenizerRegexProblem(json: unknown, depth = 0): string | undefined {
  if (depth > MAX_DEPTH) return `it is nested more than ${MAX_DEPTH} levels deep`;
  if (typeof json !== 'object' || json === null) return undefined;
  for (const [key, value] of Object.entries(json as Record<string, unknown>)) {
    if (key === 'vocab' || key === 'merges') continue;
    if (key === 'Regex' && typeof value === 'string') {
      const hazard = regexHazard(value);
      if (hazard) return `its pattern ${JSON.stringify(value.slice(0, 80))}: ${hazard}`;
      continue;
    }
    const nested = tokenizerRegexProblem(value, depth + 1);
    if (nested) return nested;
  }
  return undefined;
}
