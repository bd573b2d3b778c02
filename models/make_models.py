"""Build the sample models in this folder: small, seeded, byte-for-byte reproducible.

    python models/make_models.py            # writes next to this script
    python models/make_models.py OUT_DIR    # writes into OUT_DIR

Only onnx.helper and numpy (fixed seed per model), no exporter, no torch. Every model sets
its IR version, opset and producer explicitly, so the bytes do not depend on the onnx
release's defaults. See README.md for what each model shows.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Callable

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

IR_VERSION = 8
PRODUCER = "atccheck models/make_models.py"
FLOAT = TensorProto.FLOAT
INT64 = TensorProto.INT64


class Builder:
    """Collects nodes and initializers; names every node (ATC reports nodes by name)."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []

    def weight(self, name: str, shape: tuple[int, ...], scale: float | None = None) -> str:
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else int(shape[0])
        scale = scale if scale is not None else 1.0 / np.sqrt(max(fan_in, 1))
        array = (self.rng.standard_normal(shape) * scale).astype(np.float32)
        return self.const(name, array)

    def const(self, name: str, array: np.ndarray) -> str:
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def op(self, op_type: str, inputs: list[str], name: str, outputs: int = 1, domain: str = "", **attrs) -> str:
        outs = [name] if outputs == 1 else [f"{name}:{i}" for i in range(outputs)]
        self.nodes.append(helper.make_node(op_type, inputs, outs, name=name, domain=domain, **attrs))
        return outs[0]

    def model(self, name, inputs, outputs, opsets: dict[str, int], doc: str, value_info=()) -> onnx.ModelProto:
        graph = helper.make_graph(self.nodes, name, inputs, outputs, self.inits, value_info=list(value_info))
        imports = [helper.make_opsetid(d, v) for d, v in opsets.items()]
        model = helper.make_model(graph, opset_imports=imports, producer_name=PRODUCER, producer_version="1")
        model.ir_version = IR_VERSION
        model.doc_string = doc
        return model


# --------------------------------------------------------------------------- image models


def _convnet(batch: int | str, name: str, doc: str) -> onnx.ModelProto:
    b = Builder(seed=13)
    x = "image"
    y = b.op("Conv", [x, b.weight("conv1.weight", (8, 3, 3, 3)), b.weight("conv1.bias", (8,), 0.1)], "conv1",
             kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[1, 1])
    bn = [b.const(f"bn1.{k}", v) for k, v in (
        ("scale", (1.0 + 0.1 * b.rng.standard_normal(8)).astype(np.float32)),
        ("bias", (0.1 * b.rng.standard_normal(8)).astype(np.float32)),
        ("mean", (0.1 * b.rng.standard_normal(8)).astype(np.float32)),
        ("var", (1.0 + 0.1 * np.abs(b.rng.standard_normal(8))).astype(np.float32)),
    )]
    y = b.op("BatchNormalization", [y, *bn], "bn1", epsilon=1e-5)
    y = b.op("Relu", [y], "relu1")
    y = b.op("MaxPool", [y], "pool1", kernel_shape=[2, 2], strides=[2, 2])
    y = b.op("Conv", [y, b.weight("conv2.weight", (16, 8, 3, 3)), b.weight("conv2.bias", (16,), 0.1)], "conv2",
             kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[1, 1])
    y = b.op("Relu", [y], "relu2")
    y = b.op("GlobalAveragePool", [y], "gap")
    y = b.op("Flatten", [y], "flatten", axis=1)
    y = b.op("Gemm", [y, b.weight("fc.weight", (10, 16)), b.weight("fc.bias", (10,), 0.1)], "fc", transB=1)
    b.op("Softmax", [y], "probs", axis=-1)
    return b.model(
        name,
        [helper.make_tensor_value_info("image", FLOAT, [batch, 3, 64, 64])],
        [helper.make_tensor_value_info("probs", FLOAT, [batch, 10])],
        {"": 13},
        doc,
    )


def convnet_clean() -> onnx.ModelProto:
    return _convnet(1, "convnet_clean", "Static 1x3x64x64 image classifier that converts cleanly.")


def convnet_dynamic_batch() -> onnx.ModelProto:
    return _convnet("batch", "convnet_dynamic_batch", "The clean classifier with a symbolic batch dimension.")


def custom_op() -> onnx.ModelProto:
    b = Builder(seed=17)
    y = b.op("Conv", ["image", b.weight("stem.weight", (8, 3, 3, 3)), b.weight("stem.bias", (8,), 0.1)], "stem",
             kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    y = b.op("Relu", [y], "stem_relu")
    offset = b.op("Conv", [y, b.weight("offset.weight", (18, 8, 3, 3), 0.01), b.weight("offset.bias", (18,), 0.0)],
                  "offset", kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    y = b.op("DeformConv2D", [y, offset, b.weight("deform.weight", (8, 8, 3, 3)), b.weight("deform.bias", (8,), 0.1)],
             "deform", domain="com.example", kernel_shape=[3, 3], pads=[1, 1, 1, 1], deformable_groups=1)
    y = b.op("Relu", [y], "deform_relu")
    y = b.op("GlobalAveragePool", [y], "gap")
    b.op("Flatten", [y], "features", axis=1)
    return b.model(
        "custom_op",
        [helper.make_tensor_value_info("image", FLOAT, [1, 3, 32, 32])],
        [helper.make_tensor_value_info("features", FLOAT, [1, 8])],
        {"": 13, "com.example": 1},
        "A deformable convolution exported as the custom op com.example::DeformConv2D.",
        # exporters of custom ops record the output type, so inference goes on past the op
        value_info=[helper.make_tensor_value_info("deform", FLOAT, [1, 8, 32, 32])],
    )


def video_conv3d() -> onnx.ModelProto:
    b = Builder(seed=23)
    y = b.op("Conv", ["clip", b.weight("conv3d.weight", (8, 3, 3, 3, 3)), b.weight("conv3d.bias", (8,), 0.1)],
             "conv3d", kernel_shape=[3, 3, 3], pads=[1, 1, 1, 1, 1, 1], strides=[1, 1, 1])
    y = b.op("Relu", [y], "relu")
    b.op("ReduceMean", [y], "pooled", axes=[2, 3, 4], keepdims=0)
    return b.model(
        "video_conv3d",
        [helper.make_tensor_value_info("clip", FLOAT, [1, 3, 8, 32, 32])],
        [helper.make_tensor_value_info("pooled", FLOAT, [1, 8])],
        {"": 13},
        "A 5-D NCDHW video clip through a 3-D convolution.",
    )


# --------------------------------------------------------------------------- sequence models


def _linear(b: Builder, x: str, name: str, n_in: int, n_out: int) -> str:
    y = b.op("MatMul", [x, b.weight(f"{name}.weight", (n_in, n_out))], f"{name}/MatMul")
    return b.op("Add", [y, b.weight(f"{name}.bias", (n_out,), 0.02)], f"{name}/Add")


def _attention(b: Builder, x: str, prefix: str, hidden: int, heads: int, mask_bias: str | None = None) -> str:
    head_dim = hidden // heads
    split = b.const(f"{prefix}.split_heads", np.array([0, 0, heads, head_dim], dtype=np.int64))
    merge = b.const(f"{prefix}.merge_heads", np.array([0, 0, hidden], dtype=np.int64))
    qkv = []
    for part in ("q", "k", "v"):
        y = _linear(b, x, f"{prefix}.{part}", hidden, hidden)
        y = b.op("Reshape", [y, split], f"{prefix}/{part}/Reshape")
        perm = [0, 2, 3, 1] if part == "k" else [0, 2, 1, 3]
        qkv.append(b.op("Transpose", [y], f"{prefix}/{part}/Transpose", perm=perm))
    q, k, v = qkv
    scores = b.op("MatMul", [q, k], f"{prefix}/scores/MatMul")
    scale = b.const(f"{prefix}.scale", np.array(np.sqrt(head_dim), dtype=np.float32))
    scores = b.op("Div", [scores, scale], f"{prefix}/scores/Div")
    if mask_bias is not None:
        scores = b.op("Add", [scores, mask_bias], f"{prefix}/scores/AddMask")
    probs = b.op("Softmax", [scores], f"{prefix}/Softmax", axis=-1)
    ctx = b.op("MatMul", [probs, v], f"{prefix}/context/MatMul")
    ctx = b.op("Transpose", [ctx], f"{prefix}/context/Transpose", perm=[0, 2, 1, 3])
    ctx = b.op("Reshape", [ctx, merge], f"{prefix}/context/Reshape")
    return _linear(b, ctx, f"{prefix}.out", hidden, hidden)


def transformer_block_op17() -> onnx.ModelProto:
    hidden, heads, ffn = 64, 4, 128
    b = Builder(seed=31)

    def layer_norm(x: str, name: str) -> str:
        gamma = b.const(f"{name}.weight", (1.0 + 0.05 * b.rng.standard_normal(hidden)).astype(np.float32))
        beta = b.const(f"{name}.bias", (0.05 * b.rng.standard_normal(hidden)).astype(np.float32))
        return b.op("LayerNormalization", [x, gamma, beta], name, axis=-1, epsilon=1e-5)

    x = "tokens"
    attn = _attention(b, layer_norm(x, "ln1"), "attn", hidden, heads)
    x = b.op("Add", [x, attn], "attn_residual")
    h = _linear(b, layer_norm(x, "ln2"), "mlp.fc1", hidden, ffn)
    # GELU from Erf: 0.5 * h * (1 + erf(h / sqrt(2)))
    e = b.op("Div", [h, b.const("gelu.sqrt2", np.array(np.sqrt(2.0), dtype=np.float32))], "gelu/Div")
    e = b.op("Erf", [e], "gelu/Erf")
    e = b.op("Add", [e, b.const("gelu.one", np.array(1.0, dtype=np.float32))], "gelu/Add")
    h = b.op("Mul", [h, e], "gelu/Mul")
    h = b.op("Mul", [h, b.const("gelu.half", np.array(0.5, dtype=np.float32))], "gelu/MulHalf")
    h = _linear(b, h, "mlp.fc2", ffn, hidden)
    b.op("Add", [x, h], "hidden_states")
    return b.model(
        "transformer_block_op17",
        [helper.make_tensor_value_info("tokens", FLOAT, ["batch", "seq", hidden])],
        [helper.make_tensor_value_info("hidden_states", FLOAT, ["batch", "seq", hidden])],
        {"": 17},
        "One pre-norm transformer encoder block at opset 17 (LayerNormalization op, Erf GELU).",
    )


def bert_tiny_two_inputs() -> onnx.ModelProto:
    vocab, hidden = 128, 32
    b = Builder(seed=41)
    emb = b.op("Gather", [b.weight("embeddings.word", (vocab, hidden), 0.02), "input_ids"], "embeddings/Gather",
               axis=0)
    # attention_mask (1 keep, 0 pad) -> additive bias (0 keep, -10000 pad), shaped [batch, 1, 1, seq]
    mask = b.op("Cast", ["attention_mask"], "mask/Cast", to=FLOAT)
    mask = b.op("Sub", [b.const("mask.one", np.array(1.0, dtype=np.float32)), mask], "mask/Sub")
    mask = b.op("Mul", [mask, b.const("mask.neg", np.array(-10000.0, dtype=np.float32))], "mask/Mul")
    mask = b.op("Unsqueeze", [mask, b.const("mask.axes", np.array([1, 2], dtype=np.int64))], "mask/Unsqueeze")
    attn = _attention(b, emb, "attn", hidden, 2, mask_bias=mask)
    x = b.op("Add", [emb, attn], "attn_residual")
    first = b.op("Gather", [x, b.const("pool.index", np.array(0, dtype=np.int64))], "pool/Gather", axis=1)
    pooled = b.op("Gemm", [first, b.weight("pool.weight", (hidden, hidden)), b.weight("pool.bias", (hidden,), 0.02)],
                  "pool/Gemm", transB=1)
    b.op("Tanh", [pooled], "pooled_output")
    return b.model(
        "bert_tiny_two_inputs",
        [
            helper.make_tensor_value_info("input_ids", INT64, ["batch", "seq"]),
            helper.make_tensor_value_info("attention_mask", INT64, ["batch", "seq"]),
        ],
        [helper.make_tensor_value_info("pooled_output", FLOAT, ["batch", hidden])],
        {"": 13},
        "A one-layer BERT-style encoder with token ids and an attention mask, pooled on the first token.",
    )


# --------------------------------------------------------------------------- detector stem


def detector_stem_exported() -> onnx.ModelProto:
    """A YOLOv5-style Focus stem as exporters leave it: strided Slices on the width, a PRelu with
    a [C, 1, 1] slope, a -inf Pad before a max pool, and x[..., -1] as a Gather of index -1."""
    b = Builder(seed=53)
    end = np.array([2**63 - 1] * 2, dtype=np.int64)
    axes = b.const("focus.axes", np.array([2, 3], dtype=np.int64))
    steps = b.const("focus.steps", np.array([2, 2], dtype=np.int64))
    ends = b.const("focus.ends", end)
    parts = []
    for k, (row, col) in enumerate([(0, 0), (1, 0), (0, 1), (1, 1)]):
        starts = b.const(f"focus.starts{k}", np.array([row, col], dtype=np.int64))
        parts.append(b.op("Slice", ["image", starts, ends, axes, steps], f"focus.slice{k}"))
    x = b.op("Concat", parts, "focus.concat", axis=1)
    x = b.op("Conv", [x, b.weight("stem.w", (16, 12, 3, 3)), b.weight("stem.b", (16,), 0.1)], "stem.conv",
             kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    x = b.op("PRelu", [x, b.const("stem.slope", np.full((16, 1, 1), 0.1, dtype=np.float32))], "stem.prelu")
    x = b.op("Pad", [x, b.const("pool.pads", np.array([0, 0, 1, 1, 0, 0, 1, 1], dtype=np.int64)),
                     b.const("pool.fill", np.array(-np.inf, dtype=np.float32))], "pool.pad", mode="constant")
    x = b.op("MaxPool", [x], "pool.max", kernel_shape=[3, 3], strides=[2, 2])
    b.op("Gather", [x, b.const("head.last", np.array(-1, dtype=np.int64))], "head.last_column", axis=3)
    b.nodes[-1].output[0] = "features"
    return b.model(
        "detector_stem_exported",
        [helper.make_tensor_value_info("image", FLOAT, ["batch", 3, 64, 64])],
        [helper.make_tensor_value_info("features", FLOAT, ["batch", 16, 16])],
        {"": 13},
        "A YOLOv5-style Focus stem with a PRelu, a -inf padded max pool and a last-column Gather.",
    )


MODELS: dict[str, Callable[[], onnx.ModelProto]] = {
    "convnet_clean": convnet_clean,
    "convnet_dynamic_batch": convnet_dynamic_batch,
    "custom_op": custom_op,
    "transformer_block_op17": transformer_block_op17,
    "bert_tiny_two_inputs": bert_tiny_two_inputs,
    "video_conv3d": video_conv3d,
    "detector_stem_exported": detector_stem_exported,
}


def build_all(out_dir: Path) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, build in MODELS.items():
        model = build()
        onnx.checker.check_model(model, full_check=name != "custom_op")
        path = out_dir / f"{name}.onnx"
        path.write_bytes(model.SerializeToString(deterministic=True))
        written.append(path)
    return written


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent
    for written in build_all(target):
        print(f"{written} ({written.stat().st_size} bytes)")
