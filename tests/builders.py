"""Small models built in code for the tests (no binary fixtures)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

FLOAT = TensorProto.FLOAT


def tensor_input(name: str, shape: Sequence[int | str | None], elem_type: int = FLOAT) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, elem_type, list(shape))


def init(name: str, array: np.ndarray) -> onnx.TensorProto:
    return numpy_helper.from_array(np.asarray(array), name)


def make_model(
    nodes: Iterable[onnx.NodeProto],
    inputs: Iterable[onnx.ValueInfoProto],
    outputs: Iterable[onnx.ValueInfoProto],
    initializers: Iterable[onnx.TensorProto] = (),
    opset: int = 13,
    extra_opsets: dict[str, int] | None = None,
    ir_version: int = 8,
    functions: Iterable[onnx.FunctionProto] = (),
    name: str = "test",
) -> onnx.ModelProto:
    graph = helper.make_graph(list(nodes), name, list(inputs), list(outputs), list(initializers))
    imports = [helper.make_opsetid("", opset)]
    for domain, version in (extra_opsets or {}).items():
        imports.append(helper.make_opsetid(domain, version))
    model = helper.make_model(graph, opset_imports=imports, functions=list(functions))
    model.ir_version = ir_version
    return model


def single_op_model(
    op_type: str,
    input_shapes: Sequence[Sequence[int | str | None]],
    output_shape: Sequence[int | str | None] | None = None,
    opset: int = 13,
    domain: str = "",
    initializers: Iterable[onnx.TensorProto] = (),
    elem_type: int = FLOAT,
    extra_opsets: dict[str, int] | None = None,
    **attrs,
) -> onnx.ModelProto:
    """One node reading inputs x0..xn (graph inputs) plus named initializers, writing y."""
    inits = list(initializers)
    names = [f"x{i}" for i in range(len(input_shapes))] + [t.name for t in inits]
    node = helper.make_node(op_type, names, ["y"], name=f"{op_type.lower()}_node", domain=domain, **attrs)
    inputs = [tensor_input(f"x{i}", shape, elem_type) for i, shape in enumerate(input_shapes)]
    output = helper.make_tensor_value_info("y", elem_type, list(output_shape) if output_shape is not None else None)
    return make_model([node], inputs, [output], inits, opset=opset, extra_opsets=extra_opsets)


def codes(report) -> list[str]:
    return [f.name for f in report.findings]


CONTRIB_DOMAIN = "com.microsoft"


def contrib_model(op, extra_inputs=(), shape=(2, 5, 8), elem=TensorProto.FLOAT, outputs=("y",), graph_outputs=None,
                  relu_after=False, **attrs):
    """One onnxruntime contrib (com.microsoft) node on input x [-> Relu], opset 17 + com.microsoft 1.

    ``extra_inputs``: "skip" is a second graph input shaped like x, "" an omitted optional
    input, any other name an initializer of the hidden size (last dim of x).
    """
    dtype = helper.tensor_dtype_to_np_dtype(elem)
    rng = np.random.default_rng(11)
    inits, names, inputs = [], ["x"], [tensor_input("x", list(shape), elem)]
    for name in extra_inputs:
        if name == "":
            names.append("")
        elif name == "skip":
            names.append("skip")
            inputs.append(tensor_input("skip", list(shape), elem))
        else:
            names.append(name)
            inits.append(init(name, rng.standard_normal(shape[-1]).astype(dtype)))
    nodes = [helper.make_node(op, names, list(outputs), name="contrib", domain=CONTRIB_DOMAIN, **attrs)]
    final = outputs[0]
    if relu_after:
        nodes.append(helper.make_node("Relu", [outputs[0]], ["z"], name="relu"))
        final = "z"
    outs = [tensor_input(final, list(shape), elem)] + [tensor_input(n, list(shape), elem) for n in (graph_outputs or ())]
    return make_model(nodes, inputs, outs, inits, opset=17, extra_opsets={CONTRIB_DOMAIN: 1})


def resize_with_computed_sizes(
    x_shape: Sequence[int | str | None] = (1, 3, 8, 8), out_hw: Sequence[int] = (16, 16), shaped_output: bool = True
) -> onnx.ModelProto:
    """Resize with sizes = Concat(Shape(x)[0:2], out_hw): computable once x's shape is static.

    The output ``y`` is declared [N, C, *out_hw] like x, or without a shape (``shaped_output=False``).
    """
    nodes = [
        helper.make_node("Shape", ["x"], ["shape"], name="shape"),
        helper.make_node("Slice", ["shape", "zero", "two"], ["nc"], name="slice"),
        helper.make_node("Concat", ["nc", "hw"], ["sizes"], axis=0, name="concat"),
        helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], mode="nearest", name="resize"),
    ]
    inits = [init("zero", np.array([0], np.int64)), init("two", np.array([2], np.int64)),
             init("hw", np.array(out_hw, np.int64))]
    y = (tensor_input("y", [x_shape[0], x_shape[1], *out_hw]) if shaped_output
         else helper.make_tensor_value_info("y", FLOAT, None))
    return make_model(nodes, [tensor_input("x", x_shape)], [y], inits)


def heads_model(opset=11):
    """Shape -> Gather -> Div -> Unsqueeze -> Concat -> Reshape, then a second shape subgraph with Mod and
    Where on the reshaped value: ONNX data propagation stops at Div, so inference leaves the Reshape unknown."""
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Gather", ["s", "i0"], ["b"], axis=0),
        helper.make_node("Gather", ["s", "i1"], ["t"], axis=0),
        helper.make_node("Gather", ["s", "i2"], ["d"], axis=0),
        helper.make_node("Div", ["d", "four"], ["dq"]),
        helper.make_node("Unsqueeze", ["b"], ["bu"], axes=[0]),
        helper.make_node("Unsqueeze", ["t"], ["tu"], axes=[0]),
        helper.make_node("Unsqueeze", ["dq"], ["du"], axes=[0]),
        helper.make_node("Concat", ["bu", "tu", "fourv", "du"], ["shp"], axis=0),
        helper.make_node("Reshape", ["x", "shp"], ["r"]),
        helper.make_node("Transpose", ["r"], ["rt"], perm=[0, 2, 1, 3]),
        helper.make_node("Shape", ["rt"], ["s2"]),
        helper.make_node("Gather", ["s2", "i2"], ["t2"], axis=0),
        helper.make_node("Mod", ["t2", "four"], ["m"], name="mod"),
        helper.make_node("Equal", ["m", "zero"], ["eq"], name="equal"),
        helper.make_node("Where", ["eq", "t2", "zero"], ["w"], name="where"),
        helper.make_node("Unsqueeze", ["w"], ["wu"], axes=[0], name="unsqueeze"),
        helper.make_node("Concat", ["bu", "wu", "m1"], ["shp2"], axis=0),
        helper.make_node("Reshape", ["rt", "shp2"], ["y"], name="reshape2"),
    ]
    inits = [init(n, np.array(v, np.int64)) for n, v in
             (("i0", 0), ("i1", 1), ("i2", 2), ("four", 4), ("fourv", [4]), ("zero", 0), ("m1", [-1]))]
    return make_model(nodes, [tensor_input("x", ["B", "T", 64])], [tensor_input("y", [None, None, None])], inits,
                      opset=opset)


def deep_heads_model(depth: int, opset: int = 13, width: int = 64) -> onnx.ModelProto:
    """``depth`` blocks, each splitting the last axis into 4 heads and back by shape arithmetic on the
    block's input: Shape -> Gather -> Div -> Unsqueeze -> Concat -> Reshape -> Transpose, then Shape of
    that -> Gather -> Mul -> Concat -> Reshape. ONNX data propagation stops at Div, so without folding
    every block's Shape waits for the block before it to become static."""
    nodes = []
    h = "x"
    for k in range(depth):
        p = f"b{k}_"
        nodes += [
            helper.make_node("Shape", [h], [p + "s"]),
            helper.make_node("Gather", [p + "s", "i1"], [p + "t"], axis=0),
            helper.make_node("Gather", [p + "s", "i2"], [p + "d"], axis=0),
            helper.make_node("Div", [p + "d", "four"], [p + "dq"]),
            helper.make_node("Unsqueeze", [p + "t", "ax0"], [p + "tu"]),
            helper.make_node("Unsqueeze", [p + "dq", "ax0"], [p + "du"]),
            helper.make_node("Concat", ["onev", p + "tu", "fourv", p + "du"], [p + "shp"], axis=0),
            helper.make_node("Reshape", [h, p + "shp"], [p + "r"]),
            helper.make_node("Transpose", [p + "r"], [p + "rt"], perm=[0, 2, 1, 3]),
            helper.make_node("Shape", [p + "rt"], [p + "s2"]),
            helper.make_node("Gather", [p + "s2", "i2"], [p + "t2"], axis=0),
            helper.make_node("Gather", [p + "s2", "i3"], [p + "c2"], axis=0),
            helper.make_node("Mul", [p + "c2", "four"], [p + "c4"]),
            helper.make_node("Unsqueeze", [p + "t2", "ax0"], [p + "t2u"]),
            helper.make_node("Unsqueeze", [p + "c4", "ax0"], [p + "c4u"]),
            helper.make_node("Concat", ["onev", p + "t2u", p + "c4u"], [p + "shp2"], axis=0),
            helper.make_node("Transpose", [p + "rt"], [p + "back"], perm=[0, 2, 1, 3]),
            helper.make_node("Reshape", [p + "back", p + "shp2"], [p + "y"]),
            helper.make_node("Relu", [p + "y"], [p + "h"]),
        ]
        h = p + "h"
    nodes.append(helper.make_node("Identity", [h], ["y"]))
    inits = [init(n, np.array(v, np.int64)) for n, v in
             (("i1", 1), ("i2", 2), ("i3", 3), ("four", 4), ("fourv", [4]), ("onev", [1]), ("ax0", [0]))]
    return make_model(nodes, [tensor_input("x", ["B", "T", width])], [tensor_input("y", [None, None, None])], inits,
                      opset=opset)


def same_padding_model(layers: int = 2, size: int = 17, opset: int = 13) -> onnx.ModelProto:
    """timm-style "same" padding written as ONNX exports it: per layer, the pad of each spatial axis is
    Clip((ceil(H / s) - 1) * s + (k - 1) * d + 1 - H, min=0) computed from Shape of the layer's input,
    split before/after and fed to Pad, then a stride-2 3x3 Conv. Each layer's Shape reads the layer
    before it, so the pads of layer n are computable only once layer n-1's output shape is."""
    nodes, inits = [], []
    h = "x"
    channels = 3
    for k in range(layers):
        p = f"l{k}_"
        pads = []
        for axis in (2, 3):
            q = f"{p}a{axis}_"
            nodes += [
                helper.make_node("Shape", [h], [q + "s"]),
                helper.make_node("Gather", [q + "s", f"ax{axis}"], [q + "n"], axis=0),
                helper.make_node("Cast", [q + "n"], [q + "nf"], to=TensorProto.FLOAT),
                helper.make_node("Div", [q + "nf", "stride_f"], [q + "q"]),
                helper.make_node("Ceil", [q + "q"], [q + "c"]),
                helper.make_node("Sub", [q + "c", "one_f"], [q + "c1"]),
                helper.make_node("Mul", [q + "c1", "stride_f"], [q + "m"]),
                helper.make_node("Add", [q + "m", "span_f"], [q + "e"]),
                helper.make_node("Sub", [q + "e", q + "nf"], [q + "raw"]),
                helper.make_node("Clip", [q + "raw", "zero_f"], [q + "pad_f"], name=q + "clip"),
                helper.make_node("Cast", [q + "pad_f"], [q + "pad"], to=TensorProto.INT64),
                helper.make_node("Div", [q + "pad", "two"], [q + "lo"]),
                helper.make_node("Sub", [q + "pad", q + "lo"], [q + "hi"]),
                helper.make_node("Unsqueeze", [q + "lo", "ax0"], [q + "lou"]),
                helper.make_node("Unsqueeze", [q + "hi", "ax0"], [q + "hiu"]),
            ]
            pads.append((q + "lou", q + "hiu"))
        (top, bottom), (left, right) = pads
        nodes += [
            helper.make_node("Concat", ["zeros2", top, left, "zeros2", bottom, right], [p + "pads"], axis=0),
            helper.make_node("Pad", [h, p + "pads"], [p + "padded"]),
            helper.make_node("Conv", [p + "padded", p + "w"], [p + "y"], kernel_shape=[3, 3], strides=[2, 2]),
        ]
        inits.append(init(p + "w", np.ones((8, channels, 3, 3), np.float32)))
        channels = 8
        h = p + "y"
    nodes.append(helper.make_node("Identity", [h], ["y"]))
    scalars = (("stride_f", np.float32(2)), ("one_f", np.float32(1)), ("span_f", np.float32(3)),
               ("zero_f", np.float32(0)), ("two", np.int64(2)), ("ax2", np.int64(2)), ("ax3", np.int64(3)))
    inits += [init(n, np.array(v)) for n, v in scalars]
    inits += [init("ax0", np.array([0], np.int64)), init("zeros2", np.zeros(2, np.int64))]
    return make_model(nodes, [tensor_input("x", [1, 3, size, size])], [helper.make_tensor_value_info("y", FLOAT, None)],
                      inits, opset=opset)


def nms_model(max_out: int | None = 10, runtime: bool = False, gather: bool = False, opset: int = 11,
              batches: int = 1, classes: int = 3, boxes: int = 100) -> onnx.ModelProto:
    """NonMaxSuppression(boxes [B, S, 4], scores [B, C, S]) with max_output_boxes_per_class a constant
    initializer (``max_out``), a graph input (``runtime``) or absent (``max_out=None``); with ``gather`` the
    selected box indices (column 2) pick boxes, as detector post-processing does."""
    names = ["boxes", "scores"]
    inputs = [tensor_input("boxes", [batches, boxes, 4]), tensor_input("scores", [batches, classes, boxes])]
    inits = []
    if runtime:
        names.append("max_out")
        inputs.append(tensor_input("max_out", [1], TensorProto.INT64))
    elif max_out is not None:
        names.append("max_out")
        inits.append(init("max_out", np.array([max_out], np.int64)))
    nodes = [helper.make_node("NonMaxSuppression", names, ["selected"], name="nms")]
    outputs = [helper.make_tensor_value_info("selected", TensorProto.INT64, None)]
    if gather:
        nodes += [helper.make_node("Gather", ["selected", "col2"], ["index"], axis=1, name="box_index"),
                  helper.make_node("Gather", ["boxes", "index"], ["picked"], axis=1, name="pick")]
        inits.append(init("col2", np.array(2, np.int64)))
        outputs = [helper.make_tensor_value_info("picked", FLOAT, None)]
    return make_model(nodes, inputs, outputs, inits, opset=opset)
