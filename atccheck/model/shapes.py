"""Shape and dtype inference on a weight-free copy of the model.

The copy keeps every node and every small initializer (shape constants and the like), and
turns each large initializer into a graph input of the same type and shape, so inference
sees the shapes without the weights ever being copied. ``--input-shape`` overrides are
applied to the copy's inputs before inference.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache, cached_property
from typing import TYPE_CHECKING, Any

from atccheck.domains import STANDARD_DOMAINS, is_standard
from atccheck.model.graph import subgraphs

if TYPE_CHECKING:  # pragma: no cover
    import onnx

Dim = int | str | None  # a size, a symbol (dim_param), or unknown
Shape = tuple[Dim, ...]

# Initializers up to this many elements stay in the copy, so inference can read shape constants.
SMALL_INITIALIZER_ELEMENTS = 4096
# ONNX data propagation spends time and memory per element of every 1-D input it meets
# (about 70 bytes each: a 2 GiB float vector exhausts memory). It exists for shape-like
# vectors, so it is skipped when a 1-D input of the copy is longer than this.
DATA_PROP_MAX_VECTOR = 1 << 16


@dataclass(frozen=True)
class TensorInfo:
    elem_type: int  # onnx.TensorProto data type, 0 when unknown
    shape: Shape | None  # None: rank unknown

    @property
    def rank(self) -> int | None:
        return None if self.shape is None else len(self.shape)

    @cached_property  # immutable, and asked for many times per check
    def is_static(self) -> bool:
        return self.shape is not None and all(isinstance(d, int) and d >= 0 for d in self.shape)

    @property
    def dtype_name(self) -> str | None:
        return dtype_name(self.elem_type)


@cache  # a handful of distinct numbers, asked for per node
def dtype_name(elem_type: int) -> str | None:
    """ONNX data type number to the table spelling (float32, int64, ...)."""
    from atccheck.model import onnxpb

    if not elem_type:
        return None
    if elem_type not in onnxpb.TensorProto.DataType.values():
        return f"undefined-dtype-{elem_type}"  # no ONNX version defines it: in no support list either
    name = onnxpb.TensorProto.DataType.Name(elem_type).lower()
    return {"float": "float32", "double": "float64"}.get(name, name)


@dataclass(frozen=True)
class ShapeBreak:
    """A node of the root graph whose own shape inference fails with the shapes given to it."""

    node: str  # the node's name ('' for an unnamed node)
    op_type: str
    index: int  # its position in the root graph
    reason: str  # onnx's words for what does not fit


@dataclass
class ShapeIndex:
    """Inferred type and shape of every named value the inference could reach."""

    values: dict[str, TensorInfo] = field(default_factory=dict)
    error: str | None = None  # why inference failed or was partial, if it did
    # The given input shapes contradict the graph (strict inference fails with them and passes
    # without them): one line naming the inputs and the node.
    contradiction: str | None = None
    broken: ShapeBreak | None = None  # the node the contradiction names, when one is found

    def get(self, name: str) -> TensorInfo | None:
        return self.values.get(name)


# --------------------------------------------------------------------------- inputs (their --input-shape grammar: model/input_shape.py)


def graph_inputs(model: "onnx.ModelProto") -> list["onnx.ValueInfoProto"]:
    """Graph inputs that are real inputs (not initializer-backed constants)."""
    init = {t.name for t in model.graph.initializer}
    return [i for i in model.graph.input if i.name not in init]


def dims_text(dims: Sequence[Any]) -> str:
    """Dims as messages show them: ``[1,3,height,?]`` (a symbol by name, an unknown dim as ?)."""
    return "[" + ",".join(str(d) if isinstance(d, int) else (d or "?") for d in dims) + "]"


# --------------------------------------------------------------------------- inference


def type_info(value_type: "onnx.TypeProto") -> TensorInfo | None:
    if value_type.WhichOneof("value") != "tensor_type":
        return None
    tensor_type = value_type.tensor_type
    if not tensor_type.HasField("shape"):
        return TensorInfo(tensor_type.elem_type, None)
    dims: list[Dim] = []
    for d in tensor_type.shape.dim:
        which = d.WhichOneof("value")
        if which == "dim_value":
            dims.append(int(d.dim_value))
        elif which == "dim_param" and d.dim_param:
            dims.append(d.dim_param)
        else:
            dims.append(None)
    return TensorInfo(tensor_type.elem_type, tuple(dims))


def stripped_copy(model: "onnx.ModelProto", shapes: Mapping[str, tuple[int, ...]]) -> "onnx.ModelProto":
    """A weight-free copy for inference: large initializers become typed graph inputs."""
    from atccheck.model import onnxpb

    copy = onnxpb.ModelProto()
    copy.ir_version = max(model.ir_version, 4)
    copy.opset_import.extend(model.opset_import)
    copy.functions.extend(model.functions)
    graph = copy.graph
    graph.name = model.graph.name
    graph.node.extend(model.graph.node)
    graph.output.extend(model.graph.output)
    graph.value_info.extend(model.graph.value_info)
    listed = set()
    for vi in model.graph.input:
        listed.add(vi.name)
        new = graph.input.add()
        new.CopyFrom(vi)
        if vi.name in shapes:
            _set_dims(new, shapes[vi.name])
    for tensor in model.graph.initializer:
        count = 1
        for d in tensor.dims:
            count *= d
        inline = tensor.data_location != onnxpb.TensorProto.EXTERNAL
        if inline and count <= SMALL_INITIALIZER_ELEMENTS and min(tensor.dims, default=0) >= 0:
            graph.initializer.append(tensor)
        elif tensor.name not in listed:
            vi = graph.input.add()
            vi.name = tensor.name
            vi.type.tensor_type.elem_type = tensor.data_type
            shape = vi.type.tensor_type.shape
            for d in tensor.dims:
                dim = shape.dim.add()
                if d >= 0:
                    dim.dim_value = d
    for sparse in model.graph.sparse_initializer:  # kept: a node reading one reads a defined value
        stored = 1
        for d in sparse.values.dims:  # the non-zero values, a [NNZ] tensor
            stored *= d
        if 0 <= stored <= SMALL_INITIALIZER_ELEMENTS and sparse.values.data_location != onnxpb.TensorProto.EXTERNAL:
            graph.sparse_initializer.append(sparse)
        elif sparse.values.name not in listed:
            vi = graph.input.add()
            vi.name = sparse.values.name
            vi.type.tensor_type.elem_type = sparse.values.data_type
            for d in sparse.dims:
                vi.type.tensor_type.shape.dim.add().dim_value = max(d, 0)
    if shapes:
        _drop_symbolic_value_info(graph)
        _forget_output_dims(graph)
    for dim in _impossible_dims(graph):  # the rules still see the model as stored
        dim.Clear()
    return copy


# Element counts past this overflow the int64 arithmetic of onnx's C++ inference.
_INFERABLE_ELEMENTS = 2**62


def _impossible_dims(graph: "onnx.GraphProto") -> list[Any]:
    """The stored dims (subgraphs too) onnx's C++ inference aborts the whole process on: a
    negative one (a LayerNormalization or a Slice over an input with a dim of -7), and the
    sizes of a shape whose element count overflows int64. Such sizes mean nothing to inference."""
    found: list[Any] = []
    for values in (graph.input, graph.output, graph.value_info):
        for vi in values:
            dims = vi.type.tensor_type.shape.dim
            count = 1
            for dim in dims:
                if dim.HasField("dim_value") and dim.dim_value < 0:
                    found.append(dim)
                elif dim.HasField("dim_value"):
                    count *= dim.dim_value
            if count > _INFERABLE_ELEMENTS:
                found += [dim for dim in dims if dim.HasField("dim_value") and dim.dim_value > 1]
    for node in graph.node:
        for sub in subgraphs(node):
            found += _impossible_dims(sub)
    return found


@contextmanager
def impossible_dims_hidden(model: "onnx.ModelProto") -> Iterator[None]:
    """Within the block, the model's impossible stored dims (see _impossible_dims) are unknown,
    for a call into onnx's C++ code that infers shapes on the model itself (the version
    converter); they are put back afterwards, so the caller's model is left as it was."""
    hidden = [(dim, dim.dim_value) for dim in _impossible_dims(model.graph)]
    for dim, _ in hidden:
        dim.Clear()
    try:
        yield
    finally:
        for dim, value in hidden:
            dim.dim_value = value


def _drop_symbolic_value_info(graph: "onnx.GraphProto") -> None:
    """Forget stored shapes with symbolic dims (subgraphs too), so inference recomputes them
    from the user's static input shapes instead of keeping the exporter's symbols."""
    keep = [vi for vi in graph.value_info if (info := type_info(vi.type)) is None or info.is_static]
    if len(keep) != len(graph.value_info):
        del graph.value_info[:]
        graph.value_info.extend(keep)
    for node in graph.node:
        for sub in subgraphs(node):
            _drop_symbolic_value_info(sub)




def _unknown_dims(graph: "onnx.GraphProto", values: "Iterable[onnx.ValueInfoProto]") -> None:
    """Make every dim of these values unknown (rank and type stay), except outputs of custom-domain ops."""
    custom = {out for node in graph.node if node.domain not in STANDARD_DOMAINS for out in node.output}
    for vi in values:
        if vi.name in custom or vi.type.WhichOneof("value") != "tensor_type":
            continue
        tensor_type = vi.type.tensor_type
        if tensor_type.HasField("shape"):
            rank = len(tensor_type.shape.dim)
            tensor_type.ClearField("shape")
            for _ in range(rank):
                tensor_type.shape.dim.add()


def _forget_output_dims(graph: "onnx.GraphProto") -> None:
    """Forget the declared dims of the graph outputs standard ops compute (rank and type stay):
    inference recomputes them from the given input shapes, as ATC does, instead of keeping an
    exporter's [1, 1000] against a batch of 8."""
    _unknown_dims(graph, graph.output)


def _forget_declared_dims(graph: "onnx.GraphProto") -> None:
    """Forget the exporter's dims of values that standard ops compute (outputs and value_info,
    subgraphs too; rank and type stay), so that strict inference judges the nodes alone: a
    declared [1, 1000] output must not contradict a batch of 8, which ATC recomputes too.
    Values of custom-domain ops keep their dims: nothing else can tell them."""
    _unknown_dims(graph, list(graph.output) + list(graph.value_info))
    for node in graph.node:
        for sub in subgraphs(node):
            _forget_declared_dims(sub)


def _set_dims(value_info: "onnx.ValueInfoProto", dims: tuple[int, ...]) -> None:
    shape = value_info.type.tensor_type.shape
    for index, size in enumerate(dims):
        if index >= len(shape.dim):
            shape.dim.add()
        dim = shape.dim[index]
        if size > 0:
            dim.dim_value = size
        else:
            dim.ClearField("dim_value")
            dim.dim_param = dim.dim_param or f"{value_info.name}_dim{index}"


def _collect(graph: "onnx.GraphProto", out: dict[str, TensorInfo]) -> None:
    from atccheck.model import onnxpb

    for vi in list(graph.input) + list(graph.output) + list(graph.value_info):
        info = type_info(vi.type)
        if info is not None and (vi.name not in out or out[vi.name].shape is None):
            out[vi.name] = info
    for tensor in graph.initializer:
        out.setdefault(tensor.name, TensorInfo(tensor.data_type, tuple(int(d) for d in tensor.dims)))
    for node in graph.node:
        for sub in subgraphs(node):
            _collect(sub, out)
        if node.op_type == "Constant" and node.output:
            for attr in node.attribute:
                if attr.type == onnxpb.AttributeProto.TENSOR:
                    out.setdefault(node.output[0], TensorInfo(attr.t.data_type, tuple(int(d) for d in attr.t.dims)))


def infer_shapes(model: "onnx.ModelProto", shapes: Mapping[str, tuple[int, ...]] | None = None) -> ShapeIndex:
    """Infer shapes on a stripped copy; never raises for models inference cannot handle."""
    from atccheck.model import onnxpb

    shapes = dict(shapes or {})
    copy = stripped_copy(model, shapes)
    index = ShapeIndex()
    inferred = None
    strict_error: str | None = None
    data_props = (True, False) if _data_prop_safe(copy) else (False,)
    if shapes:
        # Strict first (the same inference; it raises instead of skipping a node), so that given
        # shapes the graph cannot take are caught; on success it costs nothing extra.
        try:
            inferred = onnxpb.infer_shapes(copy, check_type=False, strict_mode=True,
                                                         data_prop=data_props[0])
        except Exception as exc:  # onnx raises InferenceError/ValidationError/RuntimeError
            strict_error = _first_line(exc)
    for data_prop in data_props if inferred is None else ():
        try:
            inferred = onnxpb.infer_shapes(copy, check_type=False, strict_mode=False, data_prop=data_prop)
            break
        except Exception as exc:  # onnx raises InferenceError/ValidationError/RuntimeError
            index.error = _first_line(exc)
    _collect(inferred.graph if inferred is not None else copy.graph, index.values)
    if strict_error is not None:
        found = _find_contradiction(model, copy, shapes, index.values, data_props[0])
        if found is not None:
            index.contradiction, index.broken = found
    for tensor in model.graph.initializer:
        index.values[tensor.name] = TensorInfo(tensor.data_type, tuple(int(d) for d in tensor.dims))
    return index


def _data_prop_safe(copy: "onnx.ModelProto") -> bool:
    """No 1-D graph input long enough to make ONNX data propagation blow up."""
    for vi in copy.graph.input:
        dims = vi.type.tensor_type.shape.dim
        if len(dims) == 1 and dims[0].dim_value > DATA_PROP_MAX_VECTOR:
            return False
    return True


def _first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _find_contradiction(
    model: "onnx.ModelProto", copy: "onnx.ModelProto", shapes: Mapping[str, tuple[int, ...]],
    values: Mapping[str, TensorInfo], data_prop: bool,
) -> tuple[str, ShapeBreak | None] | None:
    """Strict inference failed with the given shapes: is it the shapes' fault?

    Not when it passes once the exporter's declared dims are forgotten (a declared [1, 1000]
    output against a batch of 8: ATC recomputes those), nor when the graph fails strict
    inference without the given shapes too (the graph, or onnx's inference, is the cause).
    Only run on failure, so a consistent model pays nothing for it.
    """
    from atccheck.model import onnxpb

    fresh = onnxpb.ModelProto()
    fresh.CopyFrom(copy)
    _forget_declared_dims(fresh.graph)
    try:
        onnxpb.infer_shapes(fresh, check_type=False, strict_mode=True, data_prop=data_prop)
        return None
    except Exception as exc:  # onnx raises InferenceError/ValidationError/RuntimeError
        error = _first_line(exc)
    baseline = stripped_copy(model, {})
    _forget_declared_dims(baseline.graph)
    if not _strict_passes(baseline, data_prop):
        return None
    return _contradiction(fresh, shapes, values, error)


def _strict_passes(copy: "onnx.ModelProto", data_prop: bool) -> bool:
    from atccheck.model import onnxpb

    try:
        onnxpb.infer_shapes(copy, check_type=False, strict_mode=True, data_prop=data_prop)
    except Exception:
        return False
    return True


def _contradiction(
    copy: "onnx.ModelProto", shapes: Mapping[str, tuple[int, ...]], values: Mapping[str, TensorInfo], error: str
) -> tuple[str, ShapeBreak | None]:
    """One line: which given inputs reach which node whose shape inference fails with them (and that node)."""
    given = ";".join(f"{n}:" + ",".join(str(d) for d in dims) for n, dims in shapes.items())
    found = _failing_node(copy, values)
    if found is None:
        return f"--input-shape {given} contradicts the graph: shape inference fails ({error})", None
    node, reason = found
    names = _inputs_reaching(copy.graph, node, shapes) or list(shapes)
    label = f"'{node.name}' ({node.op_type})" if node.name else f"a {node.op_type} node"
    shown = ";".join(f"{n}:" + ",".join(str(d) for d in shapes[n]) for n in names)
    index = list(copy.graph.node).index(node)
    return (f"--input-shape {shown} contradicts the graph at node {label}: {reason}; the model cannot take "
            f"{'this shape' if len(names) == 1 else 'these shapes'}"), ShapeBreak(node.name, node.op_type, index, reason)


def _failing_node(copy: "onnx.ModelProto", values: Mapping[str, TensorInfo]) -> "tuple[onnx.NodeProto, str] | None":
    """The first top-level node whose own shape inference raises, given the shapes inferred before it."""
    from atccheck.model import onnxpb

    full = onnxpb.full_onnx()  # a contradiction only: node-level inference is onnx's Python API
    opsets = {o.domain or "": o.version for o in copy.opset_import}
    constants = {t.name: t for t in copy.graph.initializer}
    for node in copy.graph.node:
        domain = node.domain if not is_standard(node.domain) else ""
        try:
            schema = onnxpb.get_schema(node.op_type, opsets.get(domain, 1), domain)
        except Exception:
            continue  # a custom op: nothing to check it against
        if any(True for _ in subgraphs(node)):
            continue  # its body needs the whole-graph inference; the fallback message covers it
        types = {}
        for name in node.input:
            info = values.get(name)
            if name and info is not None and info.shape is not None:
                dims = [d if isinstance(d, int) else (d or None) for d in info.shape]
                types[name] = full.helper.make_tensor_type_proto(info.elem_type, dims)
        data = {n: constants[n] for n in node.input if n in constants}
        try:
            full.shape_inference.infer_node_outputs(schema, node, types, data, opset_imports=list(copy.opset_import),
                                                    ir_version=copy.ir_version)
        except Exception as exc:
            reason = _first_line(exc).replace("[ShapeInferenceError]", "").strip()
            return node, reason
    return None


def _inputs_reaching(graph: "onnx.GraphProto", node: "onnx.NodeProto", shapes: Mapping[str, tuple[int, ...]]) -> list[str]:
    """The given inputs the node depends on, in the order they were given."""
    producer = {out: n for n in graph.node for out in n.output if out}
    seen: set[str] = set()
    stack = [name for name in node.input if name]
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        upstream = producer.get(name)
        if upstream is not None:
            stack.extend(i for i in upstream.input if i)
    return [name for name in shapes if name in seen]
