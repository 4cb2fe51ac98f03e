// Step 5: write ../samples/spam.txt and ../samples/ham.txt: for each class, the held-out mail
// whose model text (mailToText) is 300..2000 bytes of printable text and that the int8 model
// classifies correctly with the largest logit margin. Prints the choice and the margins.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import ort from 'onnxruntime-node';
import { Tokenizer } from '@huggingface/tokenizers';
import { loadCorpus, mailKey } from './corpus.mjs';
import { mailToText, truncateIds } from './mail-text.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const readJson = (p) => JSON.parse(readFileSync(join(root, p), 'utf8'));
const tokenizer = new Tokenizer(readJson('tokenizer.json'), readJson('tokenizer_config.json'));
const session = await ort.InferenceSession.create(join(root, 'onnx/model_quantized.onnx'));
const byKey = new Map(loadCorpus().map((m) => [mailKey(m), m]));
const { heldout } = readJson('eval/heldout-ids.json');

const best = { 0: null, 1: null };
for (const { key, label } of heldout) {
  const text = mailToText(byKey.get(key).text);
  const bytes = Buffer.byteLength(text);
  // plain readable text only: no HTML, no MIME parts, printable ASCII + newlines
  if (bytes < 300 || bytes > 2000 || /<[a-z!]|Content-Type|=[0-9A-F]{2}/i.test(text) || /[^\x20-\x7e\n\t]/.test(text)) continue;
  const ids = truncateIds(tokenizer.encode(text).ids);
  const { logits } = await session.run({
    input_ids: new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), [1, ids.length]),
    attention_mask: new ort.Tensor('int64', new BigInt64Array(ids.length).fill(1n), [1, ids.length]),
  });
  const margin = label === 1 ? logits.data[1] - logits.data[0] : logits.data[0] - logits.data[1];
  if (margin > 0 && (!best[label] || margin > best[label].margin)) best[label] = { key, text, margin };
}
for (const [label, name] of [[1, 'spam'], [0, 'ham']]) {
  const b = best[label];
  writeFileSync(join(root, `samples/${name}.txt`), b.text);
  console.log(`samples/${name}.txt <- ${b.key} (${Buffer.byteLength(b.text)} bytes, int8 logit margin ${b.margin.toFixed(2)})`);
}
