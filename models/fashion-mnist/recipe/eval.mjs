// Accuracy of onnx/model.onnx (fp32) and onnx/model_quantized.onnx (int8) with
// onnxruntime-node on the first 1000 Fashion-MNIST test images stored in eval/test-1000.png
// (labels in eval/test-1000.json). Preprocessing: models/_tools/preprocess.mjs with
// ../preprocessor_config.json (grayscale, 28x28 (identity here), /255, (x-0.2860)/0.3530).
// Batches of 64. Also checks the samples/ images on both files.
//   node models/fashion-mnist/recipe/eval.mjs [--write] [--full10k [DATA_DIR]]
// --write    writes ../eval/expected.json
// --full10k  also measures the full official test set read from the Debian IDX files
//            (default DATA_DIR /usr/share/datasets/fashion-mnist)
import { readFileSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import ort from 'onnxruntime-node';
import { decodePng, crop } from '../../_tools/png.mjs';
import { preprocessImage } from '../../_tools/preprocess.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const readJson = (p) => JSON.parse(readFileSync(join(root, p), 'utf8'));
const ortVersion = createRequire(import.meta.url)('onnxruntime-node/package.json').version;
const config = readJson('config.json');
const prep = readJson('preprocessor_config.json');
const BATCH = 64;
const sessions = {};
const session = async (file) => (sessions[file] ??= await ort.InferenceSession.create(join(root, 'onnx', file)));

async function predict(file, images) {
  const s = await session(file);
  const preds = [];
  for (let b = 0; b < images.length; b += BATCH) {
    const chunk = images.slice(b, b + BATCH).map((img) => preprocessImage(img, prep));
    const [C, H, W] = chunk[0].dims;
    const data = new Float32Array(chunk.length * C * H * W);
    chunk.forEach((t, k) => data.set(t.data, k * C * H * W));
    const out = await s.run({ [config.lantern.input_names[0]]: new ort.Tensor('float32', data, [chunk.length, C, H, W]) });
    const y = out[config.lantern.output_name].data;
    const K = y.length / chunk.length;
    for (let k = 0; k < chunk.length; k++) {
      let best = 0;
      for (let j = 1; j < K; j++) if (y[k * K + j] > y[k * K + best]) best = j;
      preds.push(best);
    }
  }
  return preds;
}

function evaluate(name, preds, labels) {
  const correct = preds.filter((p, i) => p === labels[i]).length;
  console.log(`${name}: ${correct}/${labels.length} = ${(100 * correct / labels.length).toFixed(2)}%`);
  return correct / labels.length;
}

const meta = readJson('eval/test-1000.json');
const sprite = decodePng(readFileSync(join(root, 'eval', meta.image)));
const images = meta.labels.map((_, i) => crop(sprite, {
  x: (i % meta.cols) * meta.tile.width, y: Math.floor(i / meta.cols) * meta.tile.height, w: meta.tile.width, h: meta.tile.height,
}));
const acc = {};
const preds = {};
for (const [name, file] of [['fp32', 'model.onnx'], ['int8', 'model_quantized.onnx']]) {
  preds[name] = await predict(file, images);
  acc[name] = evaluate(`${name} (${file}) on eval/test-1000.png`, preds[name], meta.labels);
}
console.log(`fp32/int8 predictions agree on ${preds.fp32.filter((p, i) => p === preds.int8[i]).length}/${images.length}`);

// Samples used by the end-to-end tests.
const label2id = config.label2id;
const sampleNames = { 'ankle-boot.png': 'Ankle boot', 'trouser.png': 'Trouser', 'bag.png': 'Bag' };
for (const [file, label] of Object.entries(sampleNames)) {
  const img = decodePng(readFileSync(join(root, 'samples', file)));
  for (const model of ['model.onnx', 'model_quantized.onnx']) {
    const [p] = await predict(model, [img]);
    const ok = p === label2id[label];
    if (!ok) process.exitCode = 4;
    console.log(`samples/${file} (${model}): ${config.id2label[p]} ${ok ? 'ok' : 'WRONG'}`);
  }
}

const fullIdx = process.argv.indexOf('--full10k');
if (fullIdx >= 0) {
  const dir = process.argv[fullIdx + 1] && !process.argv[fullIdx + 1].startsWith('--') ? process.argv[fullIdx + 1] : '/usr/share/datasets/fashion-mnist';
  const imgRaw = gunzipSync(readFileSync(join(dir, 't10k-images-idx3-ubyte.gz')));
  const labRaw = gunzipSync(readFileSync(join(dir, 't10k-labels-idx1-ubyte.gz')));
  const n = imgRaw.readUInt32BE(4);
  const all = Array.from({ length: n }, (_, i) => ({ width: 28, height: 28, channels: 1, data: imgRaw.subarray(16 + i * 784, 16 + (i + 1) * 784) }));
  const labels = Array.from(labRaw.subarray(8, 8 + n));
  for (const [name, file] of [['fp32', 'model.onnx'], ['int8', 'model_quantized.onnx']]) {
    evaluate(`${name} (${file}) on the full t10k test set`, await predict(file, all), labels);
  }
}

if (process.argv.includes('--write')) {
  writeFileSync(join(root, 'eval/expected.json'), JSON.stringify({
    n: images.length,
    fp32: acc.fp32,
    int8: acc.int8,
    split: 'Fashion-MNIST official test set (t10k), first 1000 images, eval/test-1000.png',
    measured_with: `onnxruntime-node ${ortVersion}`,
    preprocessing: 'models/_tools/preprocess.mjs with preprocessor_config.json',
  }, null, 2) + '\n');
  console.log('wrote eval/expected.json');
}
