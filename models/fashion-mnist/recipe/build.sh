#!/usr/bin/env bash
# Rebuilds models/fashion-mnist from the Debian package dataset-fashion-mnist
# (apt-get install dataset-fashion-mnist; IDX files in /usr/share/datasets/fashion-mnist).
# Run from anywhere:  bash models/fashion-mnist/recipe/build.sh [DATA_DIR]
# Needs: node >= 20 with the repo's node_modules; /usr/bin/python3 with torch, onnx, numpy, PIL.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
MODEL="$(dirname "$HERE")"
REPO="$(cd "$MODEL/../.." && pwd)"
PY="${PYTHON:-/usr/bin/python3}"
DATA="${1:-/usr/share/datasets/fashion-mnist}"
cd "$REPO"

echo "== 1/3 train (3 epochs, 2 threads) + export fp32 ONNX + eval sprite + samples"
nice -n 10 "$PY" "$HERE/train.py" "$DATA" "$MODEL" 2> >(grep -v -e 'UserWarning' -e '_C._jit_pass' >&2)
echo "== 2/3 int8 weight-only quantization"
"$PY" "$REPO/models/_tools/quantize_int8.py" "$MODEL/onnx/model.onnx" "$MODEL/onnx/model_quantized.onnx"
echo "== 3/3 evaluation with onnxruntime-node -> eval/expected.json"
node "$HERE/eval.mjs" --write --full10k "$DATA"
ls -l "$MODEL/onnx"
