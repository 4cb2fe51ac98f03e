#!/usr/bin/env python3
"""Weight-only int8 quantizer for small ONNX models (shared by the Lantern model recipes).

What it does
  * Every float32 weight that feeds
      - Conv (input 1, per output channel: axis 0),
      - ConvTranspose (input 1, axis 1),
      - Gemm (input 1, axis 0 when transB=1 else axis 1),
      - MatMul (input 1, the last axis = output features),
      - Gather (input 0, an embedding table: one scale per row, axis 0)
    is replaced by a symmetric int8 initializer `<name>_quantized`, a float32 per-channel
    `<name>_scale`, an int8 all-zero `<name>_zero_point`, and a `DequantizeLinear` node
    (opset >= 13, `axis` attribute) whose output keeps the original tensor name, so the rest
    of the graph is untouched. Biases and every other tensor stay float32.
  * Weights stored as `Constant` nodes (e.g. models converted from Paddle) are lifted to
    initializers first.
  * If the model's default-domain opset is < 13 it is first upgraded to 13 with
    onnx.version_converter (per-axis DequantizeLinear needs opset 13).

Scale per channel c: s_c = max|W_c| / 127 (1.0 when the channel is all zeros);
q = clip(round(W / s_c), -127, 127). Dequantized weight = q * s_c.

Usage: quantize_int8.py IN.onnx OUT.onnx [--min-elements 64]
Only the `onnx` and `numpy` packages are needed (onnxruntime's quantizer is not used).
"""
import argparse
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper, shape_inference, version_converter, TensorProto

MIN_OPSET = 13


def default_opset(model):
    for imp in model.opset_import:
        if imp.domain in ("", "ai.onnx"):
            return imp.version
    return None


def upgrade_opset(model, target=MIN_OPSET):
    """onnx.version_converter to `target`, after shape inference.

    The Softmax 12->13 adapter needs the input rank. Softmax keeps its input shape, so when
    inference cannot see it (e.g. behind a Reshape whose shape is computed at run time) but the
    Softmax output is a graph output with a declared shape, that shape is copied to the input.
    """
    model = shape_inference.infer_shapes(model)
    def has_rank(v):
        t = v.type.tensor_type
        return t.HasField("shape") and len(t.shape.dim) > 0

    known = {v.name for v in list(model.graph.value_info) + list(model.graph.input) if has_rank(v)}
    outputs = {o.name: o for o in model.graph.output}
    for node in model.graph.node:
        if node.op_type == "Softmax" and node.input[0] not in known and node.output[0] in outputs:
            stale = [v for v in model.graph.value_info if v.name == node.input[0]]
            for v in stale:
                model.graph.value_info.remove(v)
            vi = onnx.ValueInfoProto()
            vi.CopyFrom(outputs[node.output[0]])
            vi.name = node.input[0]
            model.graph.value_info.append(vi)
            print(f"  shape of {vi.name} taken from graph output {node.output[0]}")
    return version_converter.convert_version(model, target)


def lift_constants(graph):
    """Turn `Constant` nodes holding a tensor into initializers (same output name)."""
    keep = []
    lifted = 0
    for node in graph.node:
        if node.op_type == "Constant" and len(node.attribute) == 1 and node.attribute[0].name == "value":
            t = onnx.TensorProto()
            t.CopyFrom(node.attribute[0].t)
            t.name = node.output[0]
            graph.initializer.append(t)
            lifted += 1
        else:
            keep.append(node)
    del graph.node[:]
    graph.node.extend(keep)
    return lifted


def weight_slots(graph):
    """Yield (initializer_name, axis, op_type) for every quantizable weight use."""
    for node in graph.node:
        op = node.op_type
        if op == "Conv" and len(node.input) > 1:
            yield node.input[1], 0, op
        elif op == "ConvTranspose" and len(node.input) > 1:
            yield node.input[1], 1, op
        elif op == "Gemm" and len(node.input) > 1:
            trans_b = 0
            for a in node.attribute:
                if a.name == "transB":
                    trans_b = a.i
            yield node.input[1], 0 if trans_b else 1, op
        elif op == "MatMul" and len(node.input) > 1:
            yield node.input[1], -1, op
        elif op == "Gather" and len(node.input) > 0:
            axis = 0
            for a in node.attribute:
                if a.name == "axis":
                    axis = a.i
            if axis == 0:
                yield node.input[0], 0, op


def quantize_per_channel(w, axis):
    axis = axis % w.ndim
    moved = np.moveaxis(w, axis, 0).reshape(w.shape[axis], -1)
    amax = np.abs(moved).max(axis=1)
    scale = np.where(amax > 0, amax / 127.0, 1.0).astype(np.float32)
    shape = [1] * w.ndim
    shape[axis] = -1
    q = np.clip(np.round(w / scale.reshape(shape)), -127, 127).astype(np.int8)
    return q, scale, axis


def quantize_model(model, min_elements=64, verbose=True):
    graph = model.graph
    lifted = lift_constants(graph)
    if verbose and lifted:
        print(f"lifted {lifted} Constant nodes to initializers")

    inits = {t.name: t for t in graph.initializer}
    # A weight shared by several consumers is quantized only if they agree on the axis.
    plans = {}
    conflicts = set()
    for name, axis, op in weight_slots(graph):
        if name not in inits:
            continue
        t = inits[name]
        if t.data_type != TensorProto.FLOAT or len(t.dims) < 2:
            continue
        ndim = len(t.dims)
        ax = axis % ndim
        if name in plans and plans[name] != ax:
            conflicts.add(name)
        plans[name] = ax
    for name in conflicts:
        plans.pop(name)

    graph_inputs = {i.name: i for i in graph.input}
    new_inits, dq_nodes = [], []
    before = after = 0
    for t in list(graph.initializer):
        w = numpy_helper.to_array(t)
        before += w.nbytes
        if t.name not in plans or w.size < min_elements:
            new_inits.append(t)
            after += w.nbytes
            continue
        q, scale, axis = quantize_per_channel(w.astype(np.float32), plans[t.name])
        zp = np.zeros(scale.shape, dtype=np.int8)
        new_inits.append(numpy_helper.from_array(q, t.name + "_quantized"))
        new_inits.append(numpy_helper.from_array(scale, t.name + "_scale"))
        new_inits.append(numpy_helper.from_array(zp, t.name + "_zero_point"))
        after += q.nbytes + scale.nbytes + zp.nbytes
        dq_nodes.append(helper.make_node(
            "DequantizeLinear",
            [t.name + "_quantized", t.name + "_scale", t.name + "_zero_point"],
            [t.name], name=t.name + "_DequantizeLinear", axis=axis))
        if t.name in graph_inputs:  # old IR: initializers listed as graph inputs
            graph.input.remove(graph_inputs[t.name])
        if verbose:
            print(f"  int8 {t.name} {list(w.shape)} axis={axis}")
    del graph.initializer[:]
    graph.initializer.extend(new_inits)
    nodes = dq_nodes + list(graph.node)
    del graph.node[:]
    graph.node.extend(nodes)
    if verbose:
        print(f"quantized {len(dq_nodes)} weights; initializer bytes {before} -> {after}")
    return model


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--min-elements", type=int, default=64,
                    help="leave weights with fewer elements in float32 (default 64)")
    args = ap.parse_args(argv)
    model = onnx.load(args.src)
    op = default_opset(model)
    if op is None or op < MIN_OPSET:
        print(f"upgrading opset {op} -> {MIN_OPSET}")
        model = upgrade_opset(model, MIN_OPSET)
    model = quantize_model(model, args.min_elements)
    onnx.checker.check_model(model)
    onnx.save(model, args.dst)
    print(f"wrote {args.dst}")


if __name__ == "__main__":
    sys.exit(main())
