// Accuracy of onnx/model.onnx (fp32) and onnx/model_quantized.onnx (int8) with
// onnxruntime-node on the rendered eval set: every line of eval/lines.png (rects in
// eval/lines.json) as stored (label "0") and rotated 180 degrees (label "180").
// Preprocessing: models/_tools/preprocess.mjs with ../preprocessor_config.json (RGB, resize to
// height 48 keeping aspect with width min(192, ceil(48*w/h)), bilinear half-pixel, /255,
// (x-0.5)/0.5, zero-pad right to 192). Batches of 16.
//   node models/doc-orientation/recipe/eval.mjs [--write] [--check-int8]
// --write       writes ../eval/expected.json
// --check-int8  exits with code 3 when int8 accuracy differs from fp32 by more than 0.5 points
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import ort from 'onnxruntime-node';
import { decodePng, crop, rotate180 } from '../../_tools/png.mjs';
import { preprocessImage } from '../../_tools/preprocess.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const readJson = (p) => JSON.parse(readFileSync(join(root, p), 'utf8'));
const ortVersion = createRequire(import.meta.url)('onnxruntime-node/package.json').version;
const config = readJson('config.json');
const prep = readJson('preprocessor_config.json');
const labels = Object.keys(config.id2label).sort((a, b) => a - b).map((k) => config.id2label[k]);
const BATCH = 16;

const meta = readJson('eval/lines.json');
const sprite = decodePng(readFileSync(join(root, 'eval', meta.image)));
const examples = [];
for (const r of meta.lines) {
  const line = crop(sprite, r);
  examples.push({ img: line, label: '0' });
  examples.push({ img: rotate180(line), label: '180' });
}
const tensors = examples.map((e) => preprocessImage(e.img, prep));
const [C, H, W] = tensors[0].dims;

async function run(file) {
  const session = await ort.InferenceSession.create(join(root, 'onnx', file));
  const inName = config.lantern.input_names[0];
  const probs = [];
  for (let s = 0; s < tensors.length; s += BATCH) {
    const chunk = tensors.slice(s, s + BATCH);
    const data = new Float32Array(chunk.length * C * H * W);
    chunk.forEach((t, k) => data.set(t.data, k * C * H * W));
    const out = await session.run({ [inName]: new ort.Tensor('float32', data, [chunk.length, C, H, W]) });
    const y = out[config.lantern.output_name].data;
    for (let k = 0; k < chunk.length; k++) probs.push([y[2 * k], y[2 * k + 1]]);
  }
  return probs;
}

const result = {};
for (const [name, file] of [['fp32', 'model.onnx'], ['int8', 'model_quantized.onnx']]) {
  const t0 = performance.now();
  const probs = await run(file);
  const preds = probs.map((p) => labels[p[1] > p[0] ? 1 : 0]);
  const correct = preds.filter((p, i) => p === examples[i].label).length;
  const byLabel = Object.fromEntries(labels.map((l) => [l, preds.filter((p, i) => examples[i].label === l && p === l).length]));
  const confident = probs.filter((p, i) => Math.max(...p) >= 0.9 && preds[i] === examples[i].label).length;
  result[name] = { acc: correct / examples.length, preds };
  console.log(`${name} (${file}): ${correct}/${examples.length} = ${(100 * correct / examples.length).toFixed(2)}%  ` +
    `correct per label ${JSON.stringify(byLabel)} of ${examples.length / 2} each; correct with p>=0.9: ${confident}  (${(performance.now() - t0).toFixed(0)} ms)`);
}
const agree = result.fp32.preds.filter((p, i) => p === result.int8.preds[i]).length;
console.log(`fp32/int8 predictions agree on ${agree}/${examples.length}`);

// Samples used by the end-to-end tests: must be right with p >= 0.9 on both files.
let samplesOk = true;
for (const [file, want] of [['upright.png', '0'], ['upside-down.png', '180']]) {
  const t = preprocessImage(decodePng(readFileSync(join(root, 'samples', file))), prep);
  for (const model of ['model.onnx', 'model_quantized.onnx']) {
    const session = await ort.InferenceSession.create(join(root, 'onnx', model));
    const out = await session.run({ [config.lantern.input_names[0]]: new ort.Tensor('float32', t.data, [1, C, H, W]) });
    const p = Array.from(out[config.lantern.output_name].data);
    const got = labels[p[1] > p[0] ? 1 : 0];
    const ok = got === want && Math.max(...p) >= 0.9;
    samplesOk &&= ok;
    console.log(`samples/${file} (${model}): ${got} p=${Math.max(...p).toFixed(4)} ${ok ? 'ok' : 'WRONG/LOW'}`);
  }
}
if (!samplesOk) process.exitCode = 4;

if (process.argv.includes('--write')) {
  writeFileSync(join(root, 'eval/expected.json'), JSON.stringify({
    n: examples.length,
    fp32: result.fp32.acc,
    int8: result.int8.acc,
    split: `rendered eval set: ${meta.lines.length} text lines in eval/lines.png, each upright ("0") and rotated 180 degrees ("180")`,
    measured_with: `onnxruntime-node ${ortVersion}`,
    preprocessing: 'models/_tools/preprocess.mjs with preprocessor_config.json; rotation by pixel-order reversal before preprocessing',
  }, null, 2) + '\n');
  console.log('wrote eval/expected.json');
}
if (process.argv.includes('--check-int8') && Math.abs(result.fp32.acc - result.int8.acc) > 0.005) {
  console.log('int8 accuracy differs from fp32 by more than 0.5 points');
  process.exit(3);
}
