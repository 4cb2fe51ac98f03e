#!/usr/bin/env python3
"""Fashion-MNIST: train a small CNN, export ONNX (fp32), write the eval sprite and samples.

Data: Debian package dataset-fashion-mnist (IDX files, Expat licence) in DATA_DIR.
Model: conv(1->16, 3x3, pad 1) + ReLU + maxpool 2 -> conv(16->32, 3x3, pad 1) + ReLU +
maxpool 2 -> flatten (32*7*7) -> Linear(1568, 10). Input normalised as (x/255 - 0.2860) / 0.3530.
Training: EPOCHS epochs of Adam (lr 1e-3, batch 64), seed 0, torch threads 2.
Writes: OUT/onnx/model.onnx, OUT/eval/test-1000.png + test-1000.json (first 1000 t10k images),
OUT/samples/{ankle-boot,trouser,bag}.png.
Usage: train.py DATA_DIR MODEL_DIR
"""
import gzip
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch
from PIL import Image
from torch import nn

SEED, EPOCHS, BATCH, LR = 0, 3, 64, 1e-3
MEAN, STD = 0.2860, 0.3530
LABELS = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"]
EVAL_N, GRID_COLS = 1000, 40
SAMPLES = {"ankle-boot": 9, "trouser": 1, "bag": 8}


def read_idx(path):
    raw = gzip.open(path, "rb").read()
    ndim = raw[3]
    dims = [int.from_bytes(raw[4 + 4 * i: 8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


class FashionCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.classifier = nn.Linear(32 * 7 * 7, 10)

    def forward(self, pixel_values):
        return self.classifier(torch.flatten(self.features(pixel_values), 1))


def to_tensor(images):
    return (torch.from_numpy(images.astype(np.float32)).unsqueeze(1) / 255.0 - MEAN) / STD


def predict(model, images):
    model.eval()
    out = []
    with torch.no_grad():
        for s in range(0, len(images), 1000):
            out.append(model(to_tensor(images[s:s + 1000])))
    return torch.cat(out)


def main(data_dir, model_dir):
    data_dir, model_dir = Path(data_dir), Path(model_dir)
    torch.manual_seed(SEED)
    np.random.seed(SEED)
    torch.set_num_threads(2)
    x_train = read_idx(data_dir / "train-images-idx3-ubyte.gz")
    y_train = torch.from_numpy(read_idx(data_dir / "train-labels-idx1-ubyte.gz").astype(np.int64))
    x_test = read_idx(data_dir / "t10k-images-idx3-ubyte.gz")
    y_test = read_idx(data_dir / "t10k-labels-idx1-ubyte.gz").astype(np.int64)
    xt = to_tensor(x_train)

    model = FashionCNN()
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    loss_fn = nn.CrossEntropyLoss()
    g = torch.Generator().manual_seed(SEED)
    t0 = time.time()
    for epoch in range(EPOCHS):
        model.train()
        order = torch.randperm(len(xt), generator=g)
        total = 0.0
        for s in range(0, len(order), BATCH):
            idx = order[s:s + BATCH]
            opt.zero_grad()
            loss = loss_fn(model(xt[idx]), y_train[idx])
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
        acc = (predict(model, x_test).argmax(1).numpy() == y_test).mean()
        print(f"epoch {epoch + 1}: loss {total / len(xt):.4f}  test acc (10k) {acc:.4f}  ({time.time() - t0:.0f} s)", flush=True)

    model.eval()
    (model_dir / "onnx").mkdir(parents=True, exist_ok=True)
    torch.onnx.export(
        model, to_tensor(x_test[:2]), str(model_dir / "onnx/model.onnx"),
        input_names=["pixel_values"], output_names=["logits"],
        dynamic_axes={"pixel_values": {0: "batch"}, "logits": {0: "batch"}},
        opset_version=13, do_constant_folding=True)
    print("wrote onnx/model.onnx")

    # Eval set: the first EVAL_N test images as one grayscale sprite, row-major tiles.
    rows = (EVAL_N + GRID_COLS - 1) // GRID_COLS
    sprite = np.zeros((rows * 28, GRID_COLS * 28), dtype=np.uint8)
    for i in range(EVAL_N):
        r, c = divmod(i, GRID_COLS)
        sprite[r * 28:(r + 1) * 28, c * 28:(c + 1) * 28] = x_test[i]
    (model_dir / "eval").mkdir(exist_ok=True)
    Image.fromarray(sprite, mode="L").save(model_dir / "eval/test-1000.png", optimize=True)
    (model_dir / "eval/test-1000.json").write_text(json.dumps({
        "image": "test-1000.png",
        "source": "Fashion-MNIST t10k (official test set), images 0..999 in file order; Debian dataset-fashion-mnist, Expat licence",
        "format": "8-bit grayscale PNG, non-interlaced",
        "n": EVAL_N, "tile": {"width": 28, "height": 28}, "cols": GRID_COLS, "rows": rows,
        "layout": "image i is the tile at x = (i % cols) * 28, y = floor(i / cols) * 28",
        "label_names": LABELS,
        "labels": [int(v) for v in y_test[:EVAL_N]],
    }) + "\n")
    print(f"wrote eval/test-1000.png ({sprite.shape[1]}x{sprite.shape[0]}) and eval/test-1000.json")

    # Samples: for each wanted class, the first test image (of the 1000) classified correctly
    # with probability >= 0.99 by this model (eval.mjs re-checks them on the int8 file).
    probs = torch.softmax(predict(model, x_test[:EVAL_N]), 1).numpy()
    (model_dir / "samples").mkdir(exist_ok=True)
    for name, cls in SAMPLES.items():
        i = next(i for i in range(EVAL_N) if y_test[i] == cls and probs[i].argmax() == cls and probs[i, cls] >= 0.99)
        Image.fromarray(x_test[i], mode="L").save(model_dir / f"samples/{name}.png")
        print(f"samples/{name}.png <- t10k #{i} ({LABELS[cls]}, p={probs[i, cls]:.4f})")


if __name__ == "__main__":
    main(*sys.argv[1:3])
