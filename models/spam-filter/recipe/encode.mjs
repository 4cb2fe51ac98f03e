// Step 2: token ids for every mail, produced by the real @huggingface/tokenizers library
// (so the training ids are by construction what the library gives at run time), truncated
// with truncateIds() to MAX_LENGTH. Writes OUT_DIR/ids.json for train.py (not committed)
// and ../eval/token-fixture.json (ids of 5 held-out mails, used by tokenizer.test.ts).
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { loadCorpus, split, mailKey, mailLabel } from './corpus.mjs';
import { mailToText, truncateIds, MAX_LENGTH } from './mail-text.mjs';
import { basicTokenize } from './basic-tokenize.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = process.argv[2] ?? '/tmp/lantern-spam-filter';
mkdirSync(outDir, { recursive: true });

const tokenizerJson = JSON.parse(readFileSync(join(root, 'tokenizer.json'), 'utf8'));
const tokenizerConfig = JSON.parse(readFileSync(join(root, 'tokenizer_config.json'), 'utf8'));
const tokenizer = new Tokenizer(tokenizerJson, tokenizerConfig);

const corpus = loadCorpus();
const { train, heldout } = split(corpus.length, 0, 0.2);
const t0 = Date.now();
const encodeItem = (i) => truncateIds(tokenizer.encode(mailToText(corpus[i].text)).ids, MAX_LENGTH);
const rows = (idx) => idx.map((i) => ({ key: mailKey(corpus[i]), label: mailLabel(corpus[i]), ids: encodeItem(i) }));
const data = { max_length: MAX_LENGTH, vocab_size: Object.keys(tokenizerJson.model.vocab).length, train: rows(train), heldout: rows(heldout) };
console.log(`encoded ${corpus.length} mails in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

// Sanity check of the counting tokenizer against the library on the first 200 training mails:
// the library's tokens must be exactly the basic tokens, each mapped to itself or [UNK].
const vocab = tokenizerJson.model.vocab;
let mismatched = 0;
for (const i of train.slice(0, 200)) {
  const text = mailToText(corpus[i].text);
  const lib = tokenizer.encode(text, { add_special_tokens: false }).tokens;
  const mine = basicTokenize(text).map((w) => (w in vocab && [...w].length <= 100 ? w : '[UNK]'));
  if (lib.length !== mine.length || lib.some((t, k) => t !== mine[k])) mismatched++;
}
console.log(`basic-tokenize.mjs vs library: ${mismatched}/200 mails differ`);

const lengths = [...data.train, ...data.heldout].map((r) => r.ids.length);
const unk = [...data.train, ...data.heldout].reduce((s, r) => s + r.ids.filter((x) => x === 1).length, 0);
console.log(`mean length ${(lengths.reduce((a, b) => a + b, 0) / lengths.length).toFixed(1)}, truncated ${lengths.filter((l) => l === MAX_LENGTH).length}, [UNK] share ${(unk / lengths.reduce((a, b) => a + b, 0)).toFixed(3)}`);
writeFileSync(join(outDir, 'ids.json'), JSON.stringify(data));

// Fixture: the first 4 held-out mails plus the first held-out mail that needs truncation.
const fixtureRows = data.heldout.slice(0, 4);
const long = data.heldout.find((r, k) => k >= 4 && r.ids.length === MAX_LENGTH);
if (long) fixtureRows.push(long);
writeFileSync(join(root, 'eval/token-fixture.json'), JSON.stringify({
  note: 'Model input ids (after truncateIds to max_length 256) used in training for these held-out mails.',
  max_length: MAX_LENGTH,
  mails: fixtureRows.map((r) => ({ key: r.key, ids: r.ids })),
}) + '\n');
console.log(`wrote ${join(outDir, 'ids.json')} and eval/token-fixture.json`);
