// Shared by the spam-filter recipe, its eval and its tests (and usable by the app).
//
// The model input text of a raw RFC 822 mail is:
//     <Subject header value> + "\n\n" + <body>
// * The header block ends at the first empty line ("\n\n", or with "\r\n" line ends);
//   the body is everything after that empty line, byte for byte (nothing decoded:
//   no MIME, quoted-printable or base64 handling, no whitespace collapsing).
// * The Subject value is the first header field named "Subject" (case-insensitive), with
//   folded continuation lines unfolded (a line break followed by a space/tab is removed,
//   the space/tab kept), then trimmed of leading/trailing whitespace. No RFC 2047 decoding.
//   A mail without Subject gets "" (the text then starts with "\n\n").
// * A mail with no empty line at all has an empty body.

const HEADER_END = /\r?\n\r?\n/;

/**
 * @param {string} rawMail full mail text including headers
 * @returns {string}
 */
export function mailToText(rawMail) {
  const m = HEADER_END.exec(rawMail);
  const head = m ? rawMail.slice(0, m.index) : rawMail;
  const body = m ? rawMail.slice(m.index + m[0].length) : '';
  const lines = head.split(/\r?\n/);
  let subject = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (/^subject:/i.test(line)) {
      let value = line.slice('subject:'.length);
      for (let j = i + 1; j < lines.length && /^[ \t]/.test(lines[j]); j++) value += lines[j];
      subject = value.trim();
      break;
    }
  }
  return `${subject}\n\n${body}`;
}

/** Maximum sequence length the model was trained with ([CLS] + 254 content tokens + [SEP]). */
export const MAX_LENGTH = 256;

/**
 * Truncation rule (the tokenizer libraries have none): given the full encoding of a text
 * *with* special tokens ([CLS] first, [SEP] last), keep [CLS], the first maxLength-2 content
 * ids, and [SEP]. Works on number[] or bigint[] alike.
 * @template T
 * @param {T[]} ids
 * @param {number} [maxLength]
 * @returns {T[]}
 */
export function truncateIds(ids, maxLength = MAX_LENGTH) {
  if (ids.length <= maxLength) return ids.slice();
  return [ids[0], ...ids.slice(1, maxLength - 1), ids[ids.length - 1]];
}

/** Label of a corpus item: groups "spam-1"/"spam-2" are spam (1), the rest ham (0). */
export function mailLabel(item) {
  return item.group.startsWith('spam') ? 1 : 0;
}

/** Stable unique key of a corpus item ("id" alone repeats across groups). */
export function mailKey(item) {
  return `${item.group}/${item.id}`;
}
