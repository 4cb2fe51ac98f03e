#!/usr/bin/env python3
"""Step 3: train the spam filter on the ids written by encode.mjs and export ONNX (fp32).

Model: Embedding(V, 32) -> mean over positions where attention_mask == 1 -> Linear(32, 2).
8 epochs of Adam (lr 5e-3, batch 32, cross-entropy), seed 0, torch threads 2.
Usage: train.py IDS_JSON OUT_ONNX
"""
import json
import random
import sys
import time

import numpy as np
import torch
from torch import nn

SEED, EPOCHS, BATCH, LR, DIM = 0, 8, 32, 5e-3, 32


class SpamFilter(nn.Module):
    def __init__(self, vocab_size, dim=DIM):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim)
        self.classifier = nn.Linear(dim, 2)

    def forward(self, input_ids, attention_mask):
        mask = attention_mask.to(torch.float32).unsqueeze(-1)           # [b, s, 1]
        summed = (self.embed(input_ids) * mask).sum(dim=1)               # [b, dim]
        count = mask.sum(dim=1).clamp(min=1.0)                           # [b, 1]
        return self.classifier(summed / count)                           # [b, 2] logits


def batchify(rows, pad_id=0):
    n = max(len(r["ids"]) for r in rows)
    ids = torch.full((len(rows), n), pad_id, dtype=torch.int64)
    mask = torch.zeros((len(rows), n), dtype=torch.int64)
    for k, r in enumerate(rows):
        ids[k, : len(r["ids"])] = torch.tensor(r["ids"], dtype=torch.int64)
        mask[k, : len(r["ids"])] = 1
    labels = torch.tensor([r["label"] for r in rows], dtype=torch.int64)
    return ids, mask, labels


def accuracy(model, rows):
    model.eval()
    correct = 0
    with torch.no_grad():
        for s in range(0, len(rows), 256):
            ids, mask, labels = batchify(rows[s : s + 256])
            correct += (model(ids, mask).argmax(1) == labels).sum().item()
    return correct / len(rows)


def main(ids_json, out_onnx):
    torch.manual_seed(SEED)
    random.seed(SEED)
    np.random.seed(SEED)
    torch.set_num_threads(2)
    data = json.load(open(ids_json))
    train, heldout = data["train"], data["heldout"]
    model = SpamFilter(data["vocab_size"])
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    loss_fn = nn.CrossEntropyLoss()
    g = torch.Generator().manual_seed(SEED)
    t0 = time.time()
    for epoch in range(EPOCHS):
        model.train()
        order = torch.randperm(len(train), generator=g).tolist()
        total = 0.0
        for s in range(0, len(order), BATCH):
            ids, mask, labels = batchify([train[i] for i in order[s : s + BATCH]])
            opt.zero_grad()
            loss = loss_fn(model(ids, mask), labels)
            loss.backward()
            opt.step()
            total += loss.item() * len(labels)
        print(f"epoch {epoch + 1}: loss {total / len(train):.4f}  train acc {accuracy(model, train):.4f}  "
              f"held-out acc {accuracy(model, heldout):.4f}  ({time.time() - t0:.0f} s)", flush=True)

    model.eval()
    ids, mask, _ = batchify(heldout[:2])
    torch.onnx.export(
        model, (ids, mask), out_onnx,
        input_names=["input_ids", "attention_mask"], output_names=["logits"],
        dynamic_axes={"input_ids": {0: "batch", 1: "sequence"},
                      "attention_mask": {0: "batch", 1: "sequence"},
                      "logits": {0: "batch"}},
        opset_version=13, do_constant_folding=True)
    print(f"wrote {out_onnx}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
