"""float64-to-float32 (unsafe): compute in float32 what the model computes in float64."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.passes.base import FixLink, FixPass, PassContext, PassResult, left, register_pass

if TYPE_CHECKING:  # pragma: no cover
    import onnx


FLOAT64 = "float64"
# attributes that name an element type (Cast 'to', RandomNormal/EyeLike/*Like 'dtype', ...)
DTYPE_ATTRS = frozenset({"to", "dtype", "output_dtype"})


@register_pass
class Float64ToFloat32(FixPass):
    """Make every float64 tensor of the model float32: weights, constants, casts, inputs and outputs.

    Ascend has float64 kernels for few ops and only on the AI CPU; dtype-not-supported reports
    float64 compute (sklearn-onnx exports, ``torch.double`` leftovers, numpy constants). This
    pass rewrites every float64 in the model to float32, in every graph: initializers and
    tensor attributes (Constant, ConstantOfShape) are converted, ``Cast(to=DOUBLE)`` and dtype
    attributes (RandomNormal, EyeLike, ...) ask for FLOAT, and graph inputs, outputs and value
    annotations of float64 become float32. **The model's interface changes**: a float64 input
    or output is float32 afterwards (the notes list them), so feed float32.

    Unsafe: float32 keeps about 7 significant digits against float64's 16, and values beyond
    3.4e38 overflow. The step is accepted when outputs agree within 1e-4 absolute plus 1e-4
    relative (the verification feeds the same values, rounded to float32, to the new inputs).
    """

    name = "float64-to-float32"
    stage = "repair"
    answers = (
        FixLink("dtype-not-supported", when={"dtype": ("float64",)}, named=False),
        FixLink("dtype-not-supported", when={"output_dtype": ("float64",)}, named=False),
    )
    safe = False
    tolerance = 1e-4
    rtol = 1e-4

    def run(self, model: "onnx.ModelProto", ctx: PassContext) -> PassResult:
        too_big = _beyond_float32(model)
        if too_big:
            return PassResult(model, False, [left(f"left as is: constant '{too_big}' holds values beyond float32's "
                                                  "range (3.4e38); the model needs float64 there", too_big)])
        counts = {"tensors": 0, "nodes": 0}
        interface = [f"input '{vi.name}'" for vi in model.graph.input if _is_double(vi.type)]
        interface += [f"output '{vi.name}'" for vi in model.graph.output if _is_double(vi.type)]
        _graph(model.graph, counts)
        for function in model.functions:
            for node in function.node:
                counts["nodes"] += _node(node, counts)
        if not counts["tensors"] and not counts["nodes"] and not interface:
            return PassResult(model, False, [])
        notes = [f"float64 -> float32: {counts['tensors']} tensor(s), {counts['nodes']} node attribute(s)"]
        if interface:
            notes.append("the interface changes: " + ", ".join(interface) + " are float32 now (were float64)")
        return PassResult(model, True, notes)


def _beyond_float32(model: "onnx.ModelProto") -> str | None:
    """The name of a float64 constant with a finite value float32 cannot hold, if any."""
    import numpy as np
    import onnx

    from atccheck.model.loading import iter_graph_tensors

    limit = float(np.finfo(np.float32).max)
    for tensor in iter_graph_tensors(model.graph):
        if tensor.data_type == onnx.TensorProto.DOUBLE:
            value = onnx.numpy_helper.to_array(tensor)
            finite = value[np.isfinite(value)]
            if finite.size and float(np.abs(finite).max()) > limit:
                return tensor.name or "(unnamed)"
    return None


def _graph(graph: "onnx.GraphProto", counts: dict[str, int]) -> None:
    for tensor in graph.initializer:
        counts["tensors"] += _tensor(tensor)
    for vi in (*graph.input, *graph.output, *graph.value_info):
        _type(vi.type)
    for node in graph.node:
        counts["nodes"] += _node(node, counts)


def _node(node: "onnx.NodeProto", counts: dict[str, int]) -> int:
    import onnx

    changed = 0
    for attr in node.attribute:
        if attr.type == onnx.AttributeProto.INT and attr.name in DTYPE_ATTRS and attr.i == onnx.TensorProto.DOUBLE:
            attr.i = onnx.TensorProto.FLOAT
            changed += 1
        elif attr.type == onnx.AttributeProto.TENSOR:
            if _tensor(attr.t):
                counts["tensors"] += 1
                changed += 1
        elif attr.type == onnx.AttributeProto.TENSORS:
            for tensor in attr.tensors:
                counts["tensors"] += _tensor(tensor)
        elif attr.type == onnx.AttributeProto.GRAPH:
            _graph(attr.g, counts)
        elif attr.type == onnx.AttributeProto.GRAPHS:
            for graph in attr.graphs:
                _graph(graph, counts)
    return changed


def _tensor(tensor: "onnx.TensorProto") -> int:
    """Convert one float64 tensor in place (payload included); 1 when it was float64."""
    import numpy as np
    import onnx

    if tensor.data_type != onnx.TensorProto.DOUBLE:
        return 0
    value = onnx.numpy_helper.to_array(tensor).astype(np.float32)
    tensor.CopyFrom(onnx.numpy_helper.from_array(value, tensor.name))
    return 1


def _is_double(type_proto: "onnx.TypeProto") -> bool:
    import onnx

    return (type_proto.WhichOneof("value") == "tensor_type"
            and type_proto.tensor_type.elem_type == onnx.TensorProto.DOUBLE)


def _type(type_proto: "onnx.TypeProto") -> None:
    import onnx

    kind = type_proto.WhichOneof("value")
    if kind == "tensor_type":
        if type_proto.tensor_type.elem_type == onnx.TensorProto.DOUBLE:
            type_proto.tensor_type.elem_type = onnx.TensorProto.FLOAT
    elif kind == "sparse_tensor_type":
        if type_proto.sparse_tensor_type.elem_type == onnx.TensorProto.DOUBLE:
            type_proto.sparse_tensor_type.elem_type = onnx.TensorProto.FLOAT
    elif kind == "sequence_type":
        _type(type_proto.sequence_type.elem_type)
    elif kind == "optional_type":
        _type(type_proto.optional_type.elem_type)
    elif kind == "map_type":
        _type(type_proto.map_type.value_type)
