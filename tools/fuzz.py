"""Seeded fuzzer for atccheck's command-line contract.

Every case is a hostile input built from a seed and its index alone, so any case can be run
again by number: a mutated model (byte level: truncated, bit-flipped, padded; protobuf level:
deleted, renamed and duplicated nodes, attributes of every type with wrong values, absurd
dims, odd dtypes, opset imports, functions, subgraphs, broken external data), an odd
configuration file or baseline, an odd ``--input-shape`` string, or odd command-line options,
run through ``check``, ``fix`` or ``atc-cmd`` in a worker process (click's CliRunner, with the
worker's own file descriptors 1 and 2 captured too, so log lines that bypass Python are seen).

The contract each case must keep:

- exit 0 or 1 with a report, or exit 2 with at most 3 lines on stderr; never "internal error",
  never a traceback, never another exit code;
- no AC000 finding (a rule that crashed), nothing written to the terminal behind Python's back;
- ``check`` within 20 s, every command within the hang limit, at most 2 GB peak memory;
- the input files unchanged (hashed before and after), no temporary file left behind, and no
  output file when ``fix`` exits 2.

Usage::

    python tools/fuzz.py --cases 10000 --seed 1 --jobs 2 [--json results.json] [--show 5]
    python tools/fuzz.py --replay 1:4711        # run one case and print what it did

The test suite runs a small seeded batch through :func:`run_cases` (tests/test_fuzz.py).
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import io
import json
import os
import random
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

PROJECT = Path(__file__).resolve().parents[1]
SAMPLES = PROJECT / "models"

CHECK_LIMIT_S = 20.0  # the contract for check
HANG_LIMIT_S = 120.0  # any command: beyond this the case is killed and called a hang
MEMORY_LIMIT = 2 * 2**30  # peak resident memory per case
MAX_ERROR_LINES = 3
WORKER_ADDRESS_SPACE = 4 * 2**30

SOCS = ["Ascend310P3", "Ascend310", "Ascend910B3", "Ascend310B1", "ascend310p3", "Ascend999", ""]
FORMATS = ["text", "json", "sarif", "junit", "github", "markdown", "atc-precheck"]


# =========================================================================== cases


@dataclass
class Case:
    """One run: files to create in a fresh folder, the command line, and what the files are."""

    seed: int
    index: int
    command: str
    kind: str  # the mutation family, for the tally
    argv: list[str]
    files: dict[str, bytes] = field(default_factory=dict)
    fifos: list[str] = field(default_factory=list)
    specials: dict[str, str] = field(default_factory=dict)  # name -> kind of special file (see make_special)
    outputs: list[str] = field(default_factory=list)  # files the command may write
    description: str = ""


def case_rng(seed: int, index: int) -> random.Random:
    return random.Random(seed * 1_000_003 + index)


# --------------------------------------------------------------------------- base models


def _base_models() -> dict[str, "Any"]:
    """Seed models: the samples shipped in models/ plus a few built here for ops they lack."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    models: dict[str, Any] = {}
    for path in sorted(SAMPLES.glob("*.onnx")):
        models[path.stem] = onnx.load(str(path))

    def vi(name: str, shape: Any, elem: int = TensorProto.FLOAT) -> Any:
        return helper.make_tensor_value_info(name, elem, shape)

    def model(nodes: list, inputs: list, outputs: list, inits: list = (), opset: int = 13, **kw: Any) -> Any:
        graph = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], **kw)
        m.ir_version = 8
        return m

    # Loop (trip count and condition) and If with subgraphs
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]), helper.make_node("Add", ["v", "one"], ["v_out"])],
        "body",
        [vi("i", [], TensorProto.INT64), vi("cond_in", [], TensorProto.BOOL), vi("v", [1, 4])],
        [vi("cond_out", [], TensorProto.BOOL), vi("v_out", [1, 4])],
        [numpy_helper.from_array(np.ones((1, 4), np.float32), "one")],
    )
    then_g = helper.make_graph([helper.make_node("Relu", ["y"], ["t"])], "then", [], [vi("t", [1, 4])])
    else_g = helper.make_graph([helper.make_node("Neg", ["y"], ["e"])], "else", [], [vi("e", [1, 4])])
    models["loop_if"] = model(
        [
            helper.make_node("Loop", ["trip", "cond", "x"], ["y"], name="loop", body=body),
            helper.make_node("ReduceSum", ["y"], ["s"], name="sum", keepdims=0),
            helper.make_node("Greater", ["s", "zero"], ["c"], name="gt"),
            helper.make_node("If", ["c"], ["z"], name="if", then_branch=then_g, else_branch=else_g),
        ],
        [vi("x", [1, 4])],
        [vi("z", [1, 4])],
        [numpy_helper.from_array(np.array(3, np.int64), "trip"), numpy_helper.from_array(np.array(True), "cond"),
         numpy_helper.from_array(np.array(0.0, np.float32), "zero")],
    )
    # Resize, Pad, Gather, Slice, Cast, ReduceMean, LayerNormalization, Gelu-ish Erf
    models["mixed_ops"] = model(
        [
            helper.make_node("Resize", ["x", "", "scales"], ["r"], name="resize", mode="nearest"),
            helper.make_node("Pad", ["r", "pads", "pad_value"], ["p"], name="pad", mode="constant"),
            helper.make_node("Slice", ["p", "starts", "ends", "axes", "steps"], ["s"], name="slice"),
            helper.make_node("ReduceMean", ["s"], ["m"], name="mean", axes=[3], keepdims=1),
            helper.make_node("Cast", ["m"], ["c"], name="cast", to=TensorProto.FLOAT16),
            helper.make_node("Cast", ["c"], ["c32"], name="cast_back", to=TensorProto.FLOAT),
            helper.make_node("Gather", ["c32", "idx"], ["g"], name="gather", axis=1),
            helper.make_node("LayerNormalization", ["g", "gamma", "beta"], ["ln"], name="ln", axis=-1),
            helper.make_node("Erf", ["ln"], ["out"], name="erf"),
        ],
        [vi("x", ["batch", 3, 8, 8])],
        [vi("out", None)],
        [
            numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "scales"),
            numpy_helper.from_array(np.array([0, 0, 1, 1, 0, 0, 1, 1], np.int64), "pads"),
            numpy_helper.from_array(np.array(0.5, np.float32), "pad_value"),
            numpy_helper.from_array(np.array([0, 0], np.int64), "starts"),
            numpy_helper.from_array(np.array([16, 16], np.int64), "ends"),
            numpy_helper.from_array(np.array([2, 3], np.int64), "axes"),
            numpy_helper.from_array(np.array([1, 2], np.int64), "steps"),
            numpy_helper.from_array(np.array([0, -1], np.int64), "idx"),
            numpy_helper.from_array(np.ones((1,), np.float32), "gamma"),
            numpy_helper.from_array(np.zeros((1,), np.float32), "beta"),
        ],
        opset=17,
    )
    # a model-local function
    fn = helper.make_function("local", "Twice", ["a"], ["b"], [helper.make_node("Add", ["a", "a"], ["b"])],
                              [helper.make_opsetid("", 13)])
    models["function"] = model(
        [helper.make_node("Twice", ["x"], ["y"], name="twice", domain="local"),
         helper.make_node("AveragePool", ["y"], ["z"], name="pool", kernel_shape=[2, 2], strides=[2, 2])],
        [vi("x", [1, 2, 8, 8])],
        [vi("z", [1, 2, 4, 4])],
        functions=[fn],
    )
    models["function"].opset_import.append(helper.make_opsetid("local", 1))
    # weights big enough to go to external data
    models["external"] = model(
        [helper.make_node("MatMul", ["x", "w"], ["y"], name="mm"), helper.make_node("Relu", ["y"], ["z"], name="relu")],
        [vi("x", [1, 64])],
        [vi("z", [1, 64])],
        [numpy_helper.from_array(np.linspace(-1, 1, 64 * 64, dtype=np.float32).reshape(64, 64), "w")],
    )
    return models


_MODELS: dict[str, Any] | None = None


def base_models() -> dict[str, Any]:
    global _MODELS
    if _MODELS is None:
        _MODELS = _base_models()
    return _MODELS


# --------------------------------------------------------------------------- value generators

ODD_NAMES = ["", " ", "a\nb", "x\r\ny", "\x1b[31mred", "ü名前", "../../etc/passwd", "a" * 300, "x", "y", "w",
             "'quote\"", "$HOME", "-o", "--soc=Ascend310", "\t", "name;rm -rf /", "\ud7ff"]
ODD_INTS = [0, -1, 1, 2, 3, -2**63, 2**63 - 1, 2**31, -2**31, 65535, 7, 10**12, 255, 4096]
ODD_FLOATS = [0.0, -0.0, 1.0, -1.0, float("nan"), float("inf"), float("-inf"), 1e38, 1e-45, 3.5]


def odd_string(rng: random.Random) -> bytes:
    choice = rng.random()
    if choice < 0.25:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 12)))  # often not UTF-8
    if choice < 0.5:
        return rng.choice(["constant", "reflect", "edge", "NOTSET", "SAME_UPPER", "VALID", "linear", "nearest",
                           "cubic", "half_pixel", "floor", "round_prefer_ceil", "NHWC", "bogus"]).encode()
    return rng.choice(ODD_NAMES).encode("utf-8", "surrogatepass")


def odd_ints(rng: random.Random) -> list[int]:
    length = rng.choice([0, 1, 2, 3, 4, 5, 6, 8, 17])
    pool = ODD_INTS if rng.random() < 0.5 else [1, 2, 3, 0, -1, 1, 1]
    return [rng.choice(pool) for _ in range(length)]


def odd_dim(rng: random.Random) -> "int | str":
    return rng.choice([0, -1, -7, 1, 3, 2**31, 2**40, 2**62, 10**6, "batch", "", "n\nm", "?", "-1", "1e9"])


# --------------------------------------------------------------------------- protobuf mutations


def _all_graphs(graph: Any) -> list[Any]:
    import onnx

    graphs = [graph]
    for node in graph.node:
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.GRAPH:
                graphs.extend(_all_graphs(attr.g))
            elif attr.type == onnx.AttributeProto.GRAPHS:
                for sub in attr.graphs:
                    graphs.extend(_all_graphs(sub))
    return graphs


def _pick_node(rng: random.Random, model: Any) -> "tuple[Any, Any] | None":
    graphs = [g for g in _all_graphs(model.graph) if len(g.node)]
    if not graphs:
        return None
    graph = rng.choice(graphs)
    return graph, rng.choice(graph.node)


def m_delete_node(rng, model, case):
    picked = _pick_node(rng, model)
    if picked:
        graph, node = picked
        graph.node.remove(node)


def m_rename_node(rng, model, case):
    picked = _pick_node(rng, model)
    if picked:
        picked[1].name = rng.choice(ODD_NAMES + [model.graph.node[0].name if model.graph.node else "n"])


def m_duplicate_node(rng, model, case):
    picked = _pick_node(rng, model)
    if picked:
        graph, node = picked
        graph.node.insert(rng.randrange(len(graph.node) + 1), node)


def m_rename_value(rng, model, case):
    picked = _pick_node(rng, model)
    if picked and (picked[1].input or picked[1].output):
        node = picked[1]
        seq = node.input if node.input and rng.random() < 0.5 else node.output
        if seq:
            seq[rng.randrange(len(seq))] = rng.choice(ODD_NAMES)


def m_op_type(rng, model, case):
    picked = _pick_node(rng, model)
    if picked:
        node = picked[1]
        node.op_type = rng.choice(["Conv", "MaxPool", "AveragePool", "Resize", "Pad", "Gather", "Slice", "Loop",
                                   "If", "Scan", "Einsum", "Gelu", "LayerNormalization", "GroupNormalization",
                                   "Cast", "ReduceMean", "ReduceSum", "Split", "Concat", "Reshape", "Expand",
                                   "NonMaxSuppression", "TopK", "PRelu", "HardSwish", "Mish", "Unknown", "",
                                   "QuantizeLinear", "ConvTranspose", "Softmax", "MatMul", "Gemm", "Transpose"])
        if rng.random() < 0.2:
            node.domain = rng.choice(["", "ai.onnx", "com.microsoft", "custom", "ai.onnx.ml", "local", "\xff"])


def _random_attribute(rng: random.Random, name: str) -> Any:
    import numpy as np
    import onnx
    from onnx import helper

    kind = rng.choice(["int", "ints", "float", "floats", "string", "strings", "tensor", "graph", "empty_typed",
                       "graphs", "tensors", "sparse"])
    attr = onnx.AttributeProto()
    attr.name = name
    if kind == "int":
        attr.type, attr.i = onnx.AttributeProto.INT, rng.choice(ODD_INTS)
    elif kind == "ints":
        attr.type = onnx.AttributeProto.INTS
        attr.ints.extend(odd_ints(rng))
    elif kind == "float":
        attr.type, attr.f = onnx.AttributeProto.FLOAT, rng.choice(ODD_FLOATS)
    elif kind == "floats":
        attr.type = onnx.AttributeProto.FLOATS
        attr.floats.extend(rng.choice(ODD_FLOATS) for _ in range(rng.randrange(5)))
    elif kind == "string":
        attr.type, attr.s = onnx.AttributeProto.STRING, odd_string(rng)
    elif kind == "strings":
        attr.type = onnx.AttributeProto.STRINGS
        attr.strings.extend(odd_string(rng) for _ in range(rng.randrange(4)))
    elif kind == "tensor":
        attr.type = onnx.AttributeProto.TENSOR
        attr.t.CopyFrom(_odd_tensor(rng, name))
    elif kind == "tensors":
        attr.type = onnx.AttributeProto.TENSORS
        attr.tensors.extend([_odd_tensor(rng, name), _odd_tensor(rng, name)])
    elif kind == "graph":
        attr.type = onnx.AttributeProto.GRAPH
        attr.g.CopyFrom(helper.make_graph([], "empty", [], []))
    elif kind == "graphs":
        attr.type = onnx.AttributeProto.GRAPHS
        attr.graphs.extend([helper.make_graph([], "empty", [], [])])
    elif kind == "sparse":
        attr.type = onnx.AttributeProto.SPARSE_TENSOR
        attr.sparse_tensor.values.CopyFrom(helper.make_tensor("v", 1, [1], [1.0]))
        attr.sparse_tensor.dims.extend([rng.choice([1, 0, -1, 2**40])])
    else:  # a type with no value, or a type number no ONNX version defines
        attr.type = rng.choice([onnx.AttributeProto.INTS, onnx.AttributeProto.TENSOR, onnx.AttributeProto.INT, 99, 0])
    del np
    return attr


def _odd_tensor(rng: random.Random, name: str) -> Any:
    import onnx

    t = onnx.TensorProto()
    t.name = name
    t.data_type = rng.choice([1, 7, 6, 10, 16, 8, 9, 11, 0, 40, 999, 21, 22, 23])
    dims = [rng.choice([0, 1, 2, 3, -1, 2**33]) for _ in range(rng.randrange(4))]
    t.dims.extend(dims)
    choice = rng.random()
    if choice < 0.4:
        t.raw_data = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 40)))
    elif choice < 0.7:
        t.int64_data.extend(rng.choice(ODD_INTS) for _ in range(rng.randrange(5)))
    else:
        t.float_data.extend(rng.choice(ODD_FLOATS) for _ in range(rng.randrange(5)))
    return t


def m_attribute(rng, model, case):
    picked = _pick_node(rng, model)
    if not picked:
        return
    node = picked[1]
    names = [a.name for a in node.attribute]
    schema_names = _schema_attribute_names(node.op_type)
    name = rng.choice(names + schema_names + ["bogus"]) if (names or schema_names) else "bogus"
    new = _random_attribute(rng, name)
    for i, a in enumerate(node.attribute):
        if a.name == name:
            if rng.random() < 0.2:
                node.attribute.append(new)  # the same attribute twice
            else:
                node.attribute[i].CopyFrom(new)
            return
    node.attribute.append(new)


def m_attribute_value(rng, model, case):
    """Keep each attribute's type, change its value: wrong lengths, negative, zero, huge."""
    import onnx

    picked = _pick_node(rng, model)
    if not picked or not picked[1].attribute:
        return
    attr = rng.choice(picked[1].attribute)
    if attr.type == onnx.AttributeProto.INTS:
        del attr.ints[:]
        attr.ints.extend(odd_ints(rng))
    elif attr.type == onnx.AttributeProto.INT:
        attr.i = rng.choice(ODD_INTS)
    elif attr.type == onnx.AttributeProto.FLOAT:
        attr.f = rng.choice(ODD_FLOATS)
    elif attr.type == onnx.AttributeProto.STRING:
        attr.s = odd_string(rng)
    elif attr.type == onnx.AttributeProto.TENSOR:
        attr.t.CopyFrom(_odd_tensor(rng, attr.t.name))


def _schema_attribute_names(op_type: str) -> list[str]:
    import onnx.defs

    try:
        return sorted(onnx.defs.get_schema(op_type, 18).attributes)
    except Exception:
        return []


def _value_infos(model: Any) -> list[Any]:
    g = model.graph
    return list(g.input) + list(g.output) + list(g.value_info)


def m_dims(rng, model, case):
    infos = [v for v in _value_infos(model) if v.type.HasField("tensor_type")]
    if not infos:
        return
    vi = rng.choice(infos)
    shape = vi.type.tensor_type.shape
    choice = rng.random()
    if choice < 0.15:
        vi.type.tensor_type.ClearField("shape")
    elif choice < 0.3:
        del shape.dim[:]
        for _ in range(rng.choice([0, 9, 64])):
            shape.dim.add().dim_value = rng.choice([1, 2])
    elif shape.dim:
        dim = rng.choice(shape.dim)
        value = odd_dim(rng)
        if isinstance(value, int):
            dim.dim_value = value
        else:
            dim.dim_param = value
    else:
        shape.dim.add().dim_value = rng.choice([0, -3, 2**40])


def m_dtype(rng, model, case):
    choice = rng.random()
    types = [0, 1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 16, 17, 19, 21, 22, 23, 25, 40, 999, -1]
    if choice < 0.5:
        infos = [v for v in _value_infos(model) if v.type.HasField("tensor_type")]
        if infos:
            rng.choice(infos).type.tensor_type.elem_type = rng.choice(types)
    elif model.graph.initializer:
        t = rng.choice(model.graph.initializer)
        if rng.random() < 0.5:
            t.data_type = rng.choice(types)
        elif t.raw_data:
            t.raw_data = t.raw_data[: rng.randrange(len(t.raw_data) + 1)]
        else:
            t.dims.append(rng.choice([2, 0, 2**40]))
    else:
        picked = _pick_node(rng, model)
        if picked:
            for attr in picked[1].attribute:
                if attr.name == "to":
                    attr.i = rng.choice(types)


def m_opset(rng, model, case):
    from onnx import helper

    choice = rng.random()
    if choice < 0.2:
        del model.opset_import[:]
    elif choice < 0.4:
        model.opset_import.append(helper.make_opsetid(rng.choice(["", "ai.onnx", "com.microsoft", "x"]),
                                                      rng.choice([1, 13, 18, 0])))
    elif model.opset_import:
        model.opset_import[0].version = rng.choice([0, -1, 1, 6, 7, 9, 11, 15, 17, 18, 21, 22, 999, 2**40])
    if rng.random() < 0.2:
        model.ir_version = rng.choice([0, -1, 1, 3, 99, 2**40])


def m_function(rng, model, case):
    from onnx import helper

    name = rng.choice(["Rec", "Twice", "Conv"])
    body = [helper.make_node(rng.choice(["Rec", "Add", "Unknown"]), ["a", "a"][: rng.randrange(1, 3)], ["b"],
                             domain=rng.choice(["local", ""]))]
    fn = helper.make_function("local", name, ["a"], ["b"], body, [helper.make_opsetid("", 13),
                                                                  helper.make_opsetid("local", 1)])
    model.functions.append(fn)
    if not any(o.domain == "local" for o in model.opset_import):
        model.opset_import.append(helper.make_opsetid("local", 1))
    picked = _pick_node(rng, model)
    if picked:
        picked[1].op_type, picked[1].domain = name, "local"


def m_subgraph(rng, model, case):
    """Deep If nesting, a Loop with neither trip count nor condition, subgraphs reading unknown values."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    kind = rng.choice(["deep_if", "endless_loop", "outer_ref"])
    x = model.graph.input[0] if model.graph.input else None
    if x is None:
        return
    elem = x.type.tensor_type.elem_type or TensorProto.FLOAT
    if kind == "deep_if":
        depth = rng.choice([3, 20, 50, 90])
        leaf = helper.make_graph([helper.make_node("Identity", [x.name], ["d0"])], "leaf", [],
                                 [helper.make_tensor_value_info("d0", elem, None)])
        inner = leaf
        for level in range(depth):
            out = f"d{level + 1}"
            node = helper.make_node("If", ["flag"], [out], then_branch=inner, else_branch=leaf, name=f"if{level}")
            inner = helper.make_graph([node], f"lvl{level}", [], [helper.make_tensor_value_info(out, elem, None)])
        model.graph.initializer.append(numpy_helper.from_array(np.array(True), "flag"))
        model.graph.node.extend(inner.node)
        model.graph.output.append(helper.make_tensor_value_info(inner.output[0].name, elem, None))
    elif kind == "endless_loop":
        body = helper.make_graph(
            [helper.make_node("Identity", ["c_in"], ["c_out"]), helper.make_node("Identity", ["v"], ["v_out"])],
            "body",
            [helper.make_tensor_value_info("i", TensorProto.INT64, []),
             helper.make_tensor_value_info("c_in", TensorProto.BOOL, []),
             helper.make_tensor_value_info("v", elem, None)],
            [helper.make_tensor_value_info("c_out", TensorProto.BOOL, []),
             helper.make_tensor_value_info("v_out", elem, None)],
        )
        model.graph.node.append(helper.make_node("Loop", ["", "", x.name], ["forever"], name="forever", body=body))
        model.graph.output.append(helper.make_tensor_value_info("forever", elem, None))
    else:
        picked = _pick_node(rng, model)
        if picked:
            g = helper.make_graph([helper.make_node("Identity", ["nowhere"], ["o"])], "sub", [],
                                  [helper.make_tensor_value_info("o", elem, None)])
            picked[1].attribute.append(helper.make_attribute(rng.choice(["body", "then_branch", "extra"]), g))


def m_metadata(rng, model, case):
    model.doc_string = odd_string(rng).decode("utf-8", "replace")
    model.graph.name = rng.choice(ODD_NAMES)
    entry = model.metadata_props.add()
    entry.key, entry.value = "k", rng.choice(ODD_NAMES)


PROTO_MUTATIONS: list[Callable] = [
    m_delete_node, m_rename_node, m_duplicate_node, m_rename_value, m_op_type, m_attribute, m_attribute,
    m_attribute_value, m_attribute_value, m_dims, m_dims, m_dtype, m_opset, m_function, m_subgraph, m_metadata,
]


# --------------------------------------------------------------------------- byte mutations


def mutate_bytes(rng: random.Random, data: bytes) -> tuple[bytes, str]:
    kind = rng.choice(["truncate", "flip", "flip", "insert", "garbage", "empty", "append", "zero_run"])
    buf = bytearray(data)
    if kind == "truncate" and buf:
        return bytes(buf[: rng.randrange(len(buf))]), kind
    if kind == "flip" and buf:
        for _ in range(rng.choice([1, 1, 2, 8, 64])):
            pos = rng.randrange(len(buf))
            buf[pos] ^= 1 << rng.randrange(8)
        return bytes(buf), kind
    if kind == "insert":
        pos = rng.randrange(len(buf) + 1)
        buf[pos:pos] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 16)))
        return bytes(buf), kind
    if kind == "garbage":
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 2000))), kind
    if kind == "empty":
        return b"", kind
    if kind == "zero_run" and buf:
        pos = rng.randrange(len(buf))
        buf[pos:pos + 32] = bytes(min(32, len(buf) - pos))
        return bytes(buf), kind
    return bytes(buf) + bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64))), "append"


# --------------------------------------------------------------------------- external data


def external_files(rng: random.Random, model: Any, files: dict[str, bytes]) -> Any:
    """Save the model with external data, then break the data or its records now and then."""
    import onnx
    from onnx import external_data_helper

    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    external_data_helper.convert_model_to_external_data(copy, all_tensors_to_one_file=True, location="weights.bin",
                                                        size_threshold=64)
    tmp = tempfile.mkdtemp(prefix="atccheck-fuzz-ext-")
    try:
        external_data_helper.write_external_data_tensors(copy, tmp)
        data_path = Path(tmp) / "weights.bin"
        data = data_path.read_bytes() if data_path.exists() else b""
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    choice = rng.random()
    external = [t for t in copy.graph.initializer if t.data_location == onnx.TensorProto.EXTERNAL]
    if choice < 0.3:
        files["weights.bin"] = data
    elif choice < 0.45:
        pass  # the data file is missing
    elif choice < 0.6:
        files["weights.bin"] = data[: rng.randrange(len(data) + 1)]
    elif external:
        entry = rng.choice(list(rng.choice(external).external_data))
        if entry.key == "location":
            entry.value = rng.choice(["../outside.bin", "/etc/passwd", "sub/../../x", "", "weights.bin\x00x",
                                      "C:\\w.bin", "missing.bin", "."])
        else:
            entry.value = rng.choice(["-1", "abc", str(2**62), "", "1e3", str(len(data) + 7)])
        files["weights.bin"] = data
    else:
        files["weights.bin"] = data
    return copy


# --------------------------------------------------------------------------- special files, scripts, outputs

SPECIAL_KINDS = ["fifo", "directory", "socket", "device", "symlink-loop"]


def special_files(rng: random.Random, model: Any, case: Case) -> Any:
    """A special file where the model or its external data should be (made by make_special)."""
    kind = rng.choice(SPECIAL_KINDS)
    if rng.random() < 0.5:
        case.specials["m.onnx"] = kind
        case.description += f" model:{kind}"
        if case.command in ("check", "fix") and rng.random() < 0.5:
            # an existing output beside it makes the output guard look for the model's data files
            case.files["report.txt"] = b"old"
            case.outputs.append("report.txt")
        return model
    files: dict[str, bytes] = {}
    model = external_files(random.Random(rng.random()), model, files)
    locations = {entry.value for t in model.graph.initializer for entry in t.external_data if entry.key == "location"}
    name = rng.choice(sorted(locations)) if locations else "weights.bin"
    if name in ("weights.bin", "missing.bin"):
        case.specials[name] = kind
    for other, data in files.items():
        if other not in case.specials:
            case.files[other] = data
    case.description += f" data:{kind}"
    return model


def make_special(path: Path, kind: str) -> None:
    """Put a special file of this kind at ``path`` (a device needs CAP_MKNOD: else a link to /dev/null)."""
    import socket
    import stat

    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    elif kind == "socket":
        server = socket.socket(socket.AF_UNIX)
        try:
            server.bind(str(path))  # the file stays after the socket is closed
        finally:
            server.close()
    elif kind == "device":
        try:
            os.mknod(path, stat.S_IFCHR | 0o600, os.makedev(1, 3))  # what /dev/null is
        except OSError:
            os.symlink("/dev/null", path)
    else:  # a symlink loop
        os.symlink(path.name + ".loop", path)
        os.symlink(path.name, path.with_name(path.name + ".loop"))


def odd_script(rng: random.Random) -> tuple[bytes, str]:
    """A --lint-file past reason: one command continued over thousands of lines, a script around
    the size limit, one endless line, thousands of short commands, deep $( nesting."""
    words = ["--framework=5", "--model=m.onnx", "--output=out", "--soc_version=Ascend310P3", "--input_shape=x:1,4",
             "--bogus", "stray", "-x", "--log=error--output=o", "$MODEL", "--out_nodes=a:0", "'q'", '"d"']
    kind = rng.choice(["continued", "near-limit", "over-limit", "long-line", "many", "nested"])
    limit = 2**20  # atccheck.cli.atc_cmd.SCRIPT_LIMIT

    def lines(count: int, per: int) -> list[str]:
        return [" ".join(rng.choice(words) for _ in range(per)) for _ in range(count)]

    if kind == "continued":
        text = "atc " + " \\\n  ".join(lines(rng.choice([2_000, 10_000, 20_000]), 6)) + "\n"
    elif kind in ("near-limit", "over-limit"):
        body = " \\\n  ".join(lines(limit // 40, 6))
        size = limit - 200 if kind == "near-limit" else limit + rng.choice([1, 2**20])
        text = ("atc " + body)[:size - 1] + "\n"
        text = text.ljust(size, "x") if len(text) < size and kind == "over-limit" else text
    elif kind == "long-line":
        text = "atc " + " ".join(rng.choice(words) for _ in range(rng.choice([10_000, 60_000]))) + "\n"
    elif kind == "many":
        text = "\n".join("atc " + line for line in lines(rng.choice([5_000, 20_000]), 4)) + "\n"
    else:
        depth = rng.choice([100, 5_000])
        text = "atc --model=$(" * depth + "x" + ")" * depth + "\n"
    return text.encode("utf-8", "surrogatepass"), kind


def odd_output(rng: random.Random, case: Case) -> tuple[str, str]:
    """fix -o: names at and over the file system's limit (255 bytes), a folder name over it,
    names with odd characters, a path through a file, special files, a symlink loop."""
    kind = rng.choice(["at-limit", "over-limit", "folder-over-limit", "deep", "odd-characters", "through-a-file",
                       "special", "empty"])
    if kind == "at-limit":
        return "o" * (255 - len(".onnx")) + ".onnx", kind
    if kind == "over-limit":
        return "o" * rng.choice([256, 300, 4000]) + ".onnx", kind
    if kind == "folder-over-limit":
        return "d" * 256 + "/out.onnx", kind
    if kind == "deep":
        return "/".join(["sub"] * rng.choice([10, 1100])) + "/out.onnx", kind
    if kind == "odd-characters":
        return rng.choice(["a\nb.onnx", "名前.onnx", "-o.onnx", "a b.onnx", "x:y*?.onnx", "\t.onnx", "out.onnx.data",
                           "..onnx"]), kind
    if kind == "through-a-file":
        case.files["afile"] = b"x"
        return "afile/out.onnx", kind
    if kind == "special":
        special = rng.choice(SPECIAL_KINDS)
        case.specials["out.onnx"] = special
        return "out.onnx", f"{kind}:{special}"
    return "", kind


# --------------------------------------------------------------------------- config, baseline, shapes


def odd_config(rng: random.Random) -> tuple[str, bytes]:
    name = rng.choice(["pyproject.toml", ".atccheck.toml"])
    prefix = "[tool.atccheck]\n" if name == "pyproject.toml" else ""
    table = "[tool.atccheck" if name == "pyproject.toml" else "["
    choice = rng.random()
    if choice < 0.1:
        return name, bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200)))
    if choice < 0.15:
        return name, b"\xff\xfe" + prefix.encode() + b'soc = "Ascend310P3"\n'
    lines = []
    keys = ["soc", "cann", "precision-mode", "select", "ignore", "fail-on", "device-memory", "input-shape",
            "per-node-ignores", "input-shapes", "rule-docs-url", "bogus", "per-file-ignores"]
    for _ in range(rng.randrange(1, 5)):
        key = rng.choice(keys)
        value = rng.choice(['"Ascend310P3"', '["Ascend310P3", "Ascend910B3"]', "3", "-1", "1e999", "nan", "inf",
                            "0", "true", '"x"', "[]", "{}", '{a = 1}', '"1e400"', "[[1]]", '"*"', "1e308",
                            "9223372036854775807", '"AC1"', '["AC9"]', '"https://x.invalid/r"', '"x:1,3"'])
        lines.append(f"{key} = {value}")
    if rng.random() < 0.3:
        sub = rng.choice(["per-node-ignores", "input-shapes", "bogus"])
        lines.append(f"{table}.{sub}]" if name == "pyproject.toml" else f"[{sub}]")
        lines.append(rng.choice(['"*.onnx" = "x:1,3,8,8"', '"*" = ["AC101"]', '"*" = 3', 'a = {b = 1}',
                                 '"n*" = "dynamic-input-shape"']))
    if rng.random() < 0.1:
        lines.append("deep = " + "[" * 5000 + "]" * 5000)
    return name, (prefix + "\n".join(lines) + "\n").encode()


def odd_baseline(rng: random.Random) -> bytes:
    choice = rng.random()
    if choice < 0.15:
        return b"[" * rng.choice([1000, 100_000, 1_000_000]) + b"]" * rng.choice([0, 1000])
    if choice < 0.25:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 300)))
    if choice < 0.3:
        return b"\xff" + b'{"atccheck_baseline": 1}'
    doc: Any = {"atccheck_baseline": rng.choice([1, 2, "1", None]),
                "findings": rng.choice([[], {}, "x", None, [{"model": "m.onnx"}],
                                        [{"model": "m.onnx", "soc": "Ascend310P3", "rule": "x", "graph": "g",
                                          "count": rng.choice([0, -1, 1, "x", 1e300, 2**70, None])}],
                                        [1, 2], [[{}]]])}
    return json.dumps(doc).encode()


def odd_input_shape(rng: random.Random, model: Any) -> str:
    names = [i.name for i in model.graph.input] or ["x"]
    choice = rng.random()
    if choice < 0.3:
        return rng.choice(["", ":", ";", "x", "x:", "x:a,b", ":1,2", "x:1,,2", "x:1;x:2", "x:-2", "x:1e3",
                           "x:99999999999999999999", "x:" + ",".join(["1"] * 100), "\n", "x:1\ny:2", "名:1",
                           "x:~1", "x:1.5", "x:-1,-1", "x:0,0"])
    parts = []
    for name in rng.sample(names, k=rng.randint(1, len(names))):
        dims = [str(rng.choice([1, 2, 3, 8, 64, 224, -1, 0, 2**31, 2**62, 10**7])) for _ in range(rng.randrange(0, 6))]
        parts.append(f"{name}:{','.join(dims)}")
    return ";".join(parts)


# --------------------------------------------------------------------------- the case generator


def make_case(seed: int, index: int) -> Case:
    import onnx

    rng = case_rng(seed, index)
    models = base_models()
    base_name = rng.choice(sorted(models))
    model = onnx.ModelProto()
    model.CopyFrom(models[base_name])
    command = rng.choices(["check", "fix", "atc-cmd"], weights=[5, 2, 3])[0]
    family = rng.choices(["bytes", "proto", "external", "config", "baseline", "shapes", "cli", "special", "script",
                          "outputs"], weights=[2, 6, 1, 1, 1, 1, 2, 1, 1, 1])[0]
    if family == "baseline" and command != "check":
        command = "check"
    if family == "script":
        command = "atc-cmd"
    if family == "outputs":
        command = "fix"
    case = Case(seed, index, command, family, [], description=base_name)
    files = case.files

    if family == "proto" or rng.random() < 0.2:
        for _ in range(rng.choice([1, 1, 1, 2, 3, 5])):
            mutation = rng.choice(PROTO_MUTATIONS)
            try:
                mutation(rng, model, case)
            except Exception:  # protobuf refused the mutation itself (nesting past its limit): skip it
                case.description += f" ({mutation.__name__[2:]} refused)"
                continue
            case.description += f" {mutation.__name__[2:]}"
    if family == "external":
        model = external_files(rng, model, files)
        case.description += " external"
    if family == "special":
        model = special_files(rng, model, case)
    data = model.SerializeToString()
    if family == "bytes":
        data, how = mutate_bytes(rng, data)
        case.description += f" bytes:{how}"
    if "m.onnx" not in case.specials:
        files["m.onnx"] = data

    argv: list[str] = [command, "m.onnx"]
    if command == "check" and rng.random() < 0.06:
        # a folder of two models, now and then in worker processes (their start-up is costly):
        # one damaged model must not stop the other
        other = rng.choice(sorted(models))
        files["n.onnx"] = models[other].SerializeToString()
        argv = [command, ".", "-j", "2" if rng.random() < 0.3 else "1"]
        case.description += f" folder+{other}"
    soc = rng.choice(SOCS[:4]) if rng.random() < 0.9 else rng.choice(SOCS)
    if command == "check":
        argv += ["--soc", soc]
        if rng.random() < 0.2:
            argv += ["--soc", rng.choice(SOCS[:4])]
    elif command == "fix" or rng.random() < 0.8:
        argv += ["--soc", soc]
    if family == "shapes" or rng.random() < 0.15:
        argv += ["--input-shape", odd_input_shape(rng, model)]
    if family == "config":
        name, text = odd_config(rng)
        files[name] = text
        case.description += f" config:{name}"
        if rng.random() < 0.3:
            argv += ["--config", name]
    if family == "baseline":
        files["base.json"] = odd_baseline(rng)
        argv += ["--baseline", "base.json"]
    if "report.txt" in case.outputs:
        argv += ["-o", "report.txt"]
    if family == "script":
        files["run.sh"], how = odd_script(rng)
        argv += ["--lint-file", "run.sh"]
        case.description += f" script:{how}"
    if family == "outputs":
        target, how = odd_output(rng, case)
        argv += ["-o", target]
        case.outputs.append(target)
        case.description += f" output:{how}"
    if family == "cli" or rng.random() < 0.3:
        argv += cli_options(rng, command, case)
    if command in ("check", "fix") and "--soc" not in argv and rng.random() < 0.5:
        pass
    case.argv = argv
    return case


def cli_options(rng: random.Random, command: str, case: Case) -> list[str]:
    out: list[str] = []
    if rng.random() < 0.2:
        out += ["--cann", rng.choice(["5.0", "6.0", "8.0", "9.0", "7.0", "", "8"])]
    if command == "check":
        if rng.random() < 0.5:
            fmt = rng.choice(FORMATS)
            target = rng.choice(["report.out", "-", "m.onnx", "weights.bin", "sub/dir/r.out", "m.onnx/r.out", ".",
                                 "base.json", "fifo"])
            if target == "fifo":
                case.fifos.append("fifo")
            out += ["--format", fmt, "-o", target]
            case.outputs.append(target)
        if rng.random() < 0.2:
            out += ["--fail-on", rng.choice(["error", "warning", "info", "never"])]
        if rng.random() < 0.2:
            out += [rng.choice(["--select", "--ignore"]), rng.choice(["AC1", "AC999", "", "unsupported-op", "*", "AC"])]
        if rng.random() < 0.2:
            out += ["--device-memory", rng.choice(["1", "0", "-1", "nan", "inf", "1e999", "1e308", "abc", "0.0001",
                                                  "9" * 400])]
        if rng.random() < 0.1:
            out += ["--write-baseline", rng.choice(["new.json", "m.onnx", "sub", "fifo"])]
            case.outputs.append(out[-1])
            if out[-1] == "sub":
                case.files["sub/keep"] = b""
            if out[-1] == "fifo" and "fifo" not in case.fifos:
                case.fifos.append("fifo")
        if rng.random() < 0.1:
            out += ["-j", "2"]
        if rng.random() < 0.2:
            out += ["--precision-mode", rng.choice(["force_fp32", "allow_mix_precision", "bogus", "must_keep_origin_dtype"])]
    elif command == "fix":
        if rng.random() < 0.4:
            target = rng.choice(["out.onnx", "m.onnx", "weights.bin", "d/out.onnx", "m.onnx/x.onnx", ".", "fifo"])
            out += ["-o", target]
            case.outputs.append(target)
            if target == "fifo":
                case.fifos.append("fifo")
        if rng.random() < 0.3:
            choice = rng.choice(["fifo", "garbage", "good", "missing", "badname"])
            if choice == "fifo":
                case.fifos.append("in.npz")
            elif choice == "garbage":
                case.files["in.npz"] = bytes(rng.randrange(256) for _ in range(100))
            elif choice in ("good", "badname"):
                case.files["in.npz"] = _npz(rng, choice)
            out += ["--inputs", "in.npz"]
        if rng.random() < 0.3:
            out.append("--unsafe-fixes")
        if rng.random() < 0.2:
            out.append("--no-verify")
        if rng.random() < 0.3:
            out += ["--format", "json"]
    else:
        for option, values in [("--dynamic-batch", ["1,2,4", "0", "-1", "a", "1,1", "1" * 30, ""]),
                               ("--dynamic-image-size", ["224,224;448,448", "1", ";", "a,b"]),
                               ("--dynamic-dims", ["1,2;3,4", "", "1"]),
                               ("--precision-mode", ["bogus", "force_fp32", "allow_bf16"]),
                               ("--output", ["out", "", "/x/y", "a b"])]:
            if rng.random() < 0.15:
                out += [option, rng.choice(values)]
        if rng.random() < 0.35:
            if rng.random() < 0.5:
                out += ["--lint", _odd_atc_command(rng)]
            else:
                choice = rng.choice(["script", "fifo", "devzero", "missing", "binary", "long"])
                if choice == "fifo":
                    case.fifos.append("run.sh")
                    out += ["--lint-file", "run.sh"]
                elif choice == "devzero":
                    out += ["--lint-file", "/dev/zero"]
                elif choice == "missing":
                    out += ["--lint-file", "nothing.sh"]
                else:
                    if choice == "binary":
                        body = bytes(rng.randrange(256) for _ in range(500))
                    elif choice == "long":
                        body = ("\n".join(_odd_atc_command(rng) for _ in range(300)) + "\n").encode()
                    else:
                        body = ("#!/bin/sh\n" + _odd_atc_command(rng) + "\n").encode("utf-8", "surrogatepass")
                    case.files["run.sh"] = body
                    out += ["--lint-file", "run.sh"]
        if rng.random() < 0.2:
            out += ["--format", "json"]
    return out


def _npz(rng: random.Random, kind: str) -> bytes:
    import numpy as np

    buf = io.BytesIO()
    name = "x" if kind == "good" else rng.choice(["nope", "x\n", ""]) or "k"
    np.savez(buf, **{name: np.zeros(tuple(rng.choice([1, 2, 3, 8, 64]) for _ in range(rng.randrange(0, 4))),
                                    dtype=rng.choice([np.float32, np.int64, np.float16, np.bool_]))})
    return buf.getvalue()


def _odd_atc_command(rng: random.Random) -> str:
    parts = ["atc"]
    options = ["--framework=5", "--model=m.onnx", "--output=out", "--soc_version=Ascend310P3", "--soc_version=",
               "--input_shape=x:1,3,224,224", "--input_shape=\"x:-1,3,8,8\"", "--dynamic_batch_size=1,2",
               "--input_format=NHWC", "-framework=5", "--framework 5", "--mode=3", "--bogus", "\\", "$MODEL",
               "<model>", "--soc_version=Ascend999", "--precision_mode=force_fp32", "'unterminated", '"', "&&", "|",
               "--input_shape=名:1", "--dynamic_dims=1;2", "--out_nodes=a:0", "--log=debug", "\t", ";", "#"]
    for _ in range(rng.randrange(0, 12)):
        parts.append(rng.choice(options))
    return " ".join(parts)


# =========================================================================== running a case


@dataclass
class Result:
    seed: int
    index: int
    command: str
    kind: str
    exit_code: int | None
    seconds: float
    peak_rss: int
    violations: list[str]
    stderr: str = ""
    description: str = ""
    argv: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _reset_peak() -> None:
    try:
        with open("/proc/self/clear_refs", "w") as handle:
            handle.write("5")
    except OSError:
        pass


def _peak_rss() -> int:
    try:
        with open("/proc/self/status") as handle:
            for line in handle:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def run_case(case: Case, workdir: Path) -> Result:
    """Run one case in ``workdir`` (created empty) in this process; judge it against the contract."""
    from click.testing import CliRunner

    from atccheck.cli.main import main

    for name, data in case.files.items():
        path = workdir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    for name in case.fifos:
        path = workdir / name
        if not path.exists():
            os.mkfifo(path)
    for name, kind in case.specials.items():
        make_special(workdir / name, kind)
    inputs = {name: _digest(workdir / name) for name in case.files if name in protected_files(case)}
    before_names = set(_listing(workdir))

    old_cwd = os.getcwd()
    os.chdir(workdir)
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    raw = tempfile.TemporaryFile()  # noqa: SIM115 - closed after the run, once stdout and stderr are restored
    os.dup2(raw.fileno(), 1)
    os.dup2(raw.fileno(), 2)
    _reset_peak()
    started = time.perf_counter()
    try:
        runner = CliRunner()
        result = runner.invoke(main, case.argv, catch_exceptions=True, env={"NO_COLOR": "1", "COLUMNS": "120"})
    finally:
        seconds = time.perf_counter() - started
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        os.close(saved[0])
        os.close(saved[1])
        os.chdir(old_cwd)
    raw.seek(0)
    leaked = raw.read().decode("utf-8", "replace")
    raw.close()
    peak = _peak_rss()

    stdout = result.stdout
    stderr = result.stderr if hasattr(result, "stderr") else ""
    violations: list[str] = []
    code = result.exit_code
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        violations.append(f"exception:{type(result.exception).__name__}")
    if code not in (0, 1, 2):
        violations.append(f"exit:{code}")
    lines = [line for line in stderr.splitlines() if line.strip()]
    if code == 2:
        if not lines:
            violations.append("silent-exit-2")
        elif len(lines) > MAX_ERROR_LINES and case.command != "check" or case.command == "check" and _long_check_error(lines):
            violations.append("long-error")
    if "internal error" in stderr or "internal error" in stdout:
        violations.append("internal-error")
    if "Traceback" in stderr or "Traceback" in stdout:
        violations.append("traceback")
    if '"code": "AC000"' in stdout or " AC000 " in stdout or "AC000" in stderr:
        violations.append("rule-crash")
    if leaked.strip():
        violations.append("leak-to-terminal")
    quiet = "github" in case.argv  # GitHub annotations of a model without findings are no lines at all
    if code in (0, 1) and not stdout.strip() and not quiet and not any(o not in ("-",) for o in case.outputs):
        violations.append("no-report")
    models = 1 + ("n.onnx" in case.files)
    if case.command == "check" and seconds > CHECK_LIMIT_S * models:  # the contract is per model
        violations.append("slow-check")
    if peak > MEMORY_LIMIT:
        violations.append("memory")
    for name, digest in inputs.items():
        path = workdir / name
        if not path.exists() or (path.is_file() and _digest(path) != digest):
            violations.append(f"input-changed:{name}")
    after = set(_listing(workdir))
    new = sorted(after - before_names)
    if any(n.split("/")[-1].startswith(".") for n in new if n not in case.outputs):
        violations.append("temp-left")
    if case.command == "fix" and code == 2:
        leftovers = [n for n in new if n.endswith((".onnx", ".data"))]
        if leftovers:
            violations.append("fix-output-left")
    detail = (stderr.strip() + ("\n[fd] " + leaked.strip() if leaked.strip() else ""))[-1500:]
    # not violations (fix reverts such a pass and says why), but worth a look: a pass that raised
    notes = sorted(set(re.findall(r"reverted\s+(\S+).*?the pass raised (\w+)", stdout)))
    return Result(case.seed, case.index, case.command, case.kind, code, round(seconds, 3), peak, violations,
                  detail, case.description, case.argv, [f"{name}: {exc}" for name, exc in notes])


INPUT_OPTIONS = ("--baseline", "--config", "--inputs", "--lint-file")
CONFIG_FILES = ("pyproject.toml", ".atccheck.toml")


def protected_files(case: Case) -> set[str]:
    """The case's files that are inputs: the model, the data files it names, files given as inputs.

    A file the command is asked to write (-o, --write-baseline) that is none of these is the
    user's to overwrite, even if the case put it there.
    """
    import onnx

    from atccheck.model.loading import iter_graph_tensors

    protected = {"m.onnx", "n.onnx", *CONFIG_FILES}
    protected.update(value for option, value in zip(case.argv, case.argv[1:]) if option in INPUT_OPTIONS)
    try:
        model = onnx.ModelProto()
        model.ParseFromString(case.files.get("m.onnx", b""))
        for tensor in iter_graph_tensors(model.graph):
            for entry in tensor.external_data:
                if entry.key == "location":
                    protected.add(os.path.normpath(entry.value))
    except Exception:  # not a model: it names no data file
        pass
    return {name for name in case.files if name in protected or name not in case.outputs}


def _long_check_error(lines: list[str]) -> bool:
    """check may report several unchecked models; each error line must be its own one-line message."""
    errors = [line for line in lines if line.startswith("atccheck: error:")]
    others = [line for line in lines if not line.startswith(("atccheck: error:", "atccheck: baseline", "  "))]
    return len(errors) == 0 and len(others) > MAX_ERROR_LINES


def _listing(folder: Path) -> list[str]:
    return [str(p.relative_to(folder)) for p in folder.rglob("*")]


# =========================================================================== worker processes


def _forget_click_streams() -> None:
    """Drop click's cache of text wrappers around sys.stdout and sys.stderr.

    click keeps one wrapper per stream in a WeakKeyDictionary whose values refer to their keys,
    so every CliRunner run's streams, and the output they captured (megabytes for a --lint-file
    case), would stay in the worker for good. A user's process has one sys.stderr; only a
    harness meets this.
    """
    import weakref

    from click import _compat

    for name in ("_default_text_stdin", "_default_text_stdout", "_default_text_stderr"):
        for cell in getattr(getattr(_compat, name, None), "__closure__", None) or ():
            if isinstance(cell.cell_contents, weakref.WeakKeyDictionary):
                cell.cell_contents.clear()


def _return_freed_memory() -> None:
    """Hand the memory a case freed back to the system (glibc's malloc_trim), so the next case's
    peak is its own: glibc kept what the linter of a megabyte script had freed, and the worker's
    resident size grew by 70 MB per such case although no Python object stayed."""
    import ctypes
    import ctypes.util
    import gc

    gc.collect()
    name = ctypes.util.find_library("c")
    try:
        trim = ctypes.CDLL(name).malloc_trim if name else None
    except (OSError, AttributeError):  # not glibc
        trim = None
    if trim is not None:
        trim(0)


def worker_main() -> None:
    """Read case numbers on stdin, answer one JSON line per case on the saved stdout."""
    import resource
    import warnings

    # A case that tries to take far more than the contract allows fails with MemoryError instead of
    # taking the machine down; the peak of every case is still measured against MEMORY_LIMIT.
    resource.setrlimit(resource.RLIMIT_AS, (WORKER_ADDRESS_SPACE, WORKER_ADDRESS_SPACE))
    warnings.simplefilter("default")
    out = os.fdopen(os.dup(1), "w", buffering=1)
    base = Path(tempfile.mkdtemp(prefix="atccheck-fuzz-"))
    try:
        for line in sys.stdin:
            seed, index = (int(x) for x in line.split())
            case = make_case(seed, index)
            workdir = base / f"case{index}"
            workdir.mkdir()
            try:
                result = run_case(case, workdir)
            except Exception as exc:  # the harness itself failed: report, go on
                result = Result(seed, index, case.command, case.kind, None, 0.0, 0, [f"harness:{type(exc).__name__}"],
                                str(exc)[:500], case.description, case.argv)
            shutil.rmtree(workdir, ignore_errors=True)
            _forget_click_streams()
            _return_freed_memory()
            out.write(json.dumps(asdict(result)) + "\n")
    finally:
        out.close()
        shutil.rmtree(base, ignore_errors=True)


class Worker:
    def __init__(self) -> None:
        env = dict(os.environ, PYTHONHASHSEED="0", NO_COLOR="1")
        env.pop("ATCCHECK_DEBUG", None)
        self.proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--worker"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
                                     start_new_session=True)
        self.pending: tuple[int, int, float] | None = None

    def send(self, seed: int, index: int) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(f"{seed} {index}\n")
        self.proc.stdin.flush()
        self.pending = (seed, index, time.monotonic())

    def kill(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.kill()


def run_cases(seed: int, indices: Iterable[int], jobs: int = 1, hang_limit: float = HANG_LIMIT_S,
              progress: Callable[[Result], None] | None = None) -> list[Result]:
    """Run cases in ``jobs`` worker processes; a case over ``hang_limit`` seconds is killed as a hang."""
    todo = list(indices)
    todo.reverse()
    workers = [Worker() for _ in range(max(1, min(jobs, len(todo) or 1)))]
    results: list[Result] = []
    try:
        for w in workers:
            if todo:
                w.send(seed, todo.pop())
        while any(w.pending for w in workers):
            busy = {w.proc.stdout.fileno(): w for w in workers if w.pending}  # type: ignore[union-attr]
            ready, _, _ = select.select(list(busy), [], [], 1.0)
            now = time.monotonic()
            for fd in ready:
                w = busy[fd]
                line = w.proc.stdout.readline()  # type: ignore[union-attr]
                if line:
                    result = Result(**json.loads(line))
                else:  # the worker died (crash or kill): the case is the culprit
                    assert w.pending is not None
                    case = make_case(w.pending[0], w.pending[1])
                    result = Result(seed, w.pending[1], case.command, case.kind, None, now - w.pending[2], 0,
                                    ["worker-died"], "", case.description, case.argv)
                    w.kill()
                    workers[workers.index(w)] = w = Worker()
                results.append(result)
                if progress:
                    progress(result)
                w.pending = None
                if todo:
                    w.send(seed, todo.pop())
            for i, w in enumerate(workers):
                if w.pending and now - w.pending[2] > hang_limit:
                    case = make_case(w.pending[0], w.pending[1])
                    result = Result(seed, w.pending[1], case.command, case.kind, None, now - w.pending[2], 0,
                                    ["hang"], "", case.description, case.argv)
                    w.kill()
                    results.append(result)
                    if progress:
                        progress(result)
                    workers[i] = w = Worker()
                    if todo:
                        w.send(seed, todo.pop())
    finally:
        for w in workers:
            w.close()
    results.sort(key=lambda r: r.index)
    return results


# =========================================================================== summary


def summarize(results: list[Result]) -> dict[str, Any]:
    per_command: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    violations: collections.Counter = collections.Counter()
    kinds: collections.Counter = collections.Counter()
    for r in results:
        outcome = "violation" if r.violations else f"exit {r.exit_code}"
        per_command[r.command][outcome] += 1
        kinds[r.kind] += 1
        for v in r.violations:
            violations[v.split(":")[0] if v.startswith("input-changed") else v] += 1
    notes: collections.Counter = collections.Counter(n for r in results for n in r.notes)
    slowest = max((r.seconds for r in results if r.command == "check"), default=0.0)
    return {
        "cases": len(results),
        "per_command": {k: dict(v) for k, v in sorted(per_command.items())},
        "mutation_families": dict(sorted(kinds.items())),
        "violations": dict(violations.most_common()),
        "passes_that_raised": dict(notes.most_common()),
        "slowest_check_s": round(slowest, 2),
        "peak_rss_mib": round(max((r.peak_rss for r in results), default=0) / 2**20),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--hang-limit", type=float, default=HANG_LIMIT_S)
    parser.add_argument("--json", metavar="FILE", help="write every result and the summary here")
    parser.add_argument("--show", type=int, default=3, help="examples printed per violation class")
    parser.add_argument("--replay", metavar="SEED:INDEX", help="run one case in this process and print it")
    parser.add_argument("--keep", metavar="DIR", help="with --replay: write the case's files to DIR instead of running")
    args = parser.parse_args()
    if args.worker:
        worker_main()
        return 0
    if args.replay:
        seed, index = (int(x) for x in args.replay.split(":"))
        case = make_case(seed, index)
        print(json.dumps({k: v for k, v in asdict(case).items() if k != "files"}, indent=1))
        if args.keep:
            folder = Path(args.keep)
            folder.mkdir(parents=True, exist_ok=True)
            for name, data in case.files.items():
                (folder / name).parent.mkdir(parents=True, exist_ok=True)
                (folder / name).write_bytes(data)
            print(f"case files written to {folder}; run: atccheck {' '.join(case.argv)}")
            return 0
        with tempfile.TemporaryDirectory(prefix="atccheck-fuzz-") as tmp:
            print(json.dumps(asdict(run_case(case, Path(tmp))), indent=1))
        return 0
    started = time.perf_counter()
    done = [0]

    def progress(result: Result) -> None:
        done[0] += 1
        if result.violations:
            print(f"[{result.index}] {result.command} {' '.join(result.violations)}: {result.description} | "
                  f"{result.stderr.splitlines()[-1] if result.stderr.strip() else ''}"[:300], file=sys.stderr)
        if done[0] % 500 == 0:
            print(f"... {done[0]} cases, {time.perf_counter() - started:.0f} s", file=sys.stderr)

    results = run_cases(args.seed, range(args.start, args.start + args.cases), args.jobs, args.hang_limit, progress)
    summary = summarize(results)
    summary["seconds"] = round(time.perf_counter() - started, 1)
    summary["seed"] = args.seed
    print(json.dumps(summary, indent=2))
    by_class: dict[str, list[Result]] = collections.defaultdict(list)
    for r in results:
        for v in r.violations:
            by_class[v].append(r)
    for v, items in sorted(by_class.items()):
        for r in items[: args.show]:
            print(f"{v}: --replay {r.seed}:{r.index} {r.command} [{r.description}] {r.argv}\n    "
                  f"{r.stderr.strip()[-400:]}")
    if args.json:
        Path(args.json).write_text(json.dumps({"summary": summary, "results": [asdict(r) for r in results]}))
    return 1 if any(r.violations for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
