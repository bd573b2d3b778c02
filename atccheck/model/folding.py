"""Constant folding as ATC sees it: values computable before run time, and the shapes they fix.

ATC folds constant subgraphs at compile time (``--oo_constant_folding`` defaults to true), so
a shape computation such as ``Shape -> Gather -> Div -> Unsqueeze -> Concat -> Reshape`` never
reaches a kernel once the input shapes are static. ONNX shape inference (with data
propagation) follows only a few integer ops (Add, Mul, Gather, Concat, ...) and leaves the
shape after a ``Div`` or ``Where`` unknown, which hides everything downstream.

:func:`fold_shapes` evaluates the small values of the root graph that depend only on
constants and static shapes, with numpy, for the shape-arithmetic ops below, and runs until
nothing changes. It works as a worklist: a node is looked at again only when one of the values
it reads has just been computed or has just got a better shape, and then it is either
evaluated or its output shapes are inferred again by ONNX's own inference function for that
one node, given the values known so far. A deep transformer whose every block reshapes by the
Shape of the block before it therefore costs one pass over the graph plus the nodes each new
value reaches, not one whole-graph inference per block. Whole-graph inference (with the
computed values as initializers, and ONNX's data propagation) runs only to finish, when values
were computed and some node output is still not static: again only while it finds something the
worklist did not, at most once per node of the root graph. Nodes with subgraphs (If) are left
to it.

It never reads external weights, and never evaluates a tensor larger than
``MAX_FOLD_ELEMENTS``: it is an analysis, not a simplifier.

:func:`refine_shapes` starts the same propagation from a folded model and a few output shapes
set from outside (the static shapes Ascend's own infer-shape functions give data-dependent ops,
``atccheck/model/ascend_shapes.py``).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from atccheck.domains import STANDARD_DOMAINS
from atccheck.model.graph import (
    NONDETERMINISTIC_OPS,
    NOT_NUMBERS,
    SMALL_CONSTANT_ELEMENTS,
    GraphIndex,
    attribute_values,
    node_reads,
)
from atccheck.model.schema import onnx_schema
from atccheck.model.shapes import ShapeIndex, TensorInfo

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    import onnx

# onnx.AttributeProto.GRAPH and GRAPHS (fixed by the ONNX protobuf schema).
_SUBGRAPH_TYPES = (5, 10)
# Values up to this many elements are evaluated (shape vectors, masks, small index tensors).
MAX_FOLD_ELEMENTS = 1 << 16


@dataclass
class Folded:
    """What folding found: computed values (names of non-constant node outputs) and refined shapes.

    ``rounds`` counts the whole-graph inferences it ran, ``node_inferences`` the single-node ones,
    ``evaluations`` the nodes it computed: how much work reaching the fixed point took.
    """

    values: dict[str, "np.ndarray"] = field(default_factory=dict)
    shapes: ShapeIndex | None = None
    rounds: int = 0
    node_inferences: int = 0
    evaluations: int = 0


def fold_shapes(
    model: "onnx.ModelProto",
    shapes: ShapeIndex,
    input_shapes: Mapping[str, tuple[int, ...]],
    graph: GraphIndex,
) -> Folded:
    """Evaluate foldable values and refine shapes with them until nothing new is learnt."""
    folder = _Folder(model, graph, shapes, input_shapes)
    for name in graph.initializers:
        value = graph.const_value(name)
        if value is not None:
            folder.known[name] = value
    folder.queue_all()
    declared = bool(input_shapes) and any(not _is_static(shapes, o.name) for o in model.graph.output)
    return folder.run(full_first=declared)


def refine_shapes(
    model: "onnx.ModelProto",
    graph: GraphIndex,
    folded: Folded,
    overrides: Mapping[str, TensorInfo],
    input_shapes: Mapping[str, tuple[int, ...]],
) -> ShapeIndex:
    """The shapes of a folded model once ``overrides`` set some values' shapes; folding goes on from them."""
    base = folded.shapes or ShapeIndex()
    folder = _Folder(model, graph, ShapeIndex(values=dict(base.values), error=base.error), input_shapes)
    for name in graph.initializers:
        array = graph.const_value(name)
        if array is not None:
            folder.known[name] = array
    folder.known.update(folded.values)
    for name, info in overrides.items():
        old = folder.shapes.get(name)
        if old is None or _better(info, old):
            folder.shapes.values[name] = info
            folder.changed(name)
    return folder.run(full_first=False).shapes or folder.shapes


def _is_static(shapes: ShapeIndex, name: str) -> bool:
    info = shapes.get(name)
    return info is not None and info.is_static


class _Folder:
    """The worklist over the root graph's nodes, in graph order."""

    def __init__(self, model: "onnx.ModelProto", graph: GraphIndex, shapes: ShapeIndex,
                 input_shapes: Mapping[str, tuple[int, ...]]) -> None:
        self.model = model
        self.graph = graph
        self.input_shapes = input_shapes
        self.shapes = ShapeIndex(values=dict(shapes.values), error=shapes.error, contradiction=shapes.contradiction)
        self.known: dict[str, Any] = {}
        self.folded = Folded(shapes=self.shapes)
        self.nodes = list(model.graph.node)
        self.consumers: dict[str, list[int]] = {}
        self.with_subgraphs: set[int] = set()
        for index, node in enumerate(self.nodes):
            if any(a.type in _SUBGRAPH_TYPES for a in node.attribute):
                self.with_subgraphs.add(index)
                reads = node_reads(node)
            else:
                reads = [i for i in node.input if i]
            for name in reads:
                self.consumers.setdefault(name, []).append(index)
        self.heap: list[int] = []
        self.queued: set[int] = set()
        self.dirty: set[int] = set()  # nodes whose inputs got a better shape or a value
        self.opset = _opset(graph, "")
        self.opsets = {(o.domain or ""): o.version for o in model.opset_import}
        self.fresh = False  # values computed since the last whole-graph inference

    # ---- the queue

    def queue_all(self) -> None:
        self.heap = list(range(len(self.nodes)))
        self.queued = set(self.heap)

    def changed(self, name: str) -> None:
        """A value got a better shape or a value: its readers are looked at again."""
        for index in self.consumers.get(name, ()):
            self.dirty.add(index)
            if index not in self.queued:
                self.queued.add(index)
                heapq.heappush(self.heap, index)

    def run(self, *, full_first: bool) -> Folded:
        # Graph outputs declared with -1 or symbols: the finishing inference runs without the declaration.
        self.fresh = self.fresh or full_first
        limit = len(self.nodes) + 1  # each whole-graph inference must teach something new
        while True:
            while self.heap:
                index = heapq.heappop(self.heap)
                self.queued.discard(index)
                self._visit(index)
            if not self.fresh or self.folded.rounds >= limit or self._all_static() or not self._full():
                break
        self.folded.shapes = self.shapes
        return self.folded

    def _all_static(self) -> bool:
        """Every root-graph node output is static: whole-graph inference could teach nothing more."""
        values = self.shapes.values
        for node in self.nodes:
            for name in node.output:
                info = values.get(name) if name else None
                if name and (info is None or not info.is_static):
                    return False
        return True

    # ---- one node

    def _visit(self, index: int) -> None:
        node = self.nodes[index]
        dirty = index in self.dirty
        self.dirty.discard(index)
        outputs = [o for o in node.output if o]
        if not outputs or all(o in self.known for o in outputs):
            return
        if node.domain not in STANDARD_DOMAINS or node.op_type in NONDETERMINISTIC_OPS:
            return
        if node.op_type == "Constant":
            value = self.graph.const_value(outputs[0])
            if value is not None:
                self._learn(outputs[0], value)
            return
        if index in self.with_subgraphs:
            if dirty:
                self.fresh = True  # its body needs the whole-graph inference
            return
        if self._evaluate(node):
            return
        if dirty:
            self._infer_node(node)

    def _evaluate(self, node: "onnx.NodeProto") -> bool:
        import numpy as np

        if node.op_type in ("Shape", "Size"):
            info = self.shapes.get(node.input[0]) if node.input else None
            if info is None or not info.is_static:
                return False
            results = [_shape_value(node, info)]
        else:
            impl = _OPS.get(node.op_type)
            if impl is None or any(name and name not in self.known for name in node.input):
                return False
            args = [self.known[name] if name else None for name in node.input]
            try:
                with np.errstate(all="ignore"):
                    results = impl(args, attribute_values(node), self.opset)
            except Exception:  # an op this evaluator cannot compute: left unfolded
                return False
        self.folded.evaluations += 1
        learnt = False
        for name, value in zip(node.output, results):
            if not name or value is None:
                continue
            value = np.asarray(value)
            if value.size > MAX_FOLD_ELEMENTS or value.dtype.kind in NOT_NUMBERS or not _agrees(self.shapes.get(name), value):
                continue  # (text is no value the rules read, and shape inference cannot take it back)
            self._learn(name, value)
            self.folded.values[name] = value
            self.fresh = True
            learnt = True
        return learnt

    def _learn(self, name: str, value: Any) -> None:
        self.known[name] = value
        old = self.shapes.get(name)
        info = TensorInfo(old.elem_type if old is not None and old.elem_type else _elem_type(value),
                          tuple(int(d) for d in value.shape))
        if old is None or _better(info, old):
            self.shapes.values[name] = info
        self.changed(name)

    def _infer_node(self, node: "onnx.NodeProto") -> None:
        """ONNX's inference function for this one node, with the shapes and values known now."""
        from atccheck.model import onnxpb

        domain = node.domain if node.domain not in STANDARD_DOMAINS else ""
        schema = _schema(node.op_type, self.opsets.get(domain, self.opset), domain)
        if schema is None:
            return
        types: dict[str, bytes] = {}
        data: dict[str, bytes] = {}
        for name in node.input:
            if not name:
                continue
            info = self.shapes.get(name)
            if info is None or not info.elem_type:
                return  # inference needs every input's type
            types[name] = _type_bytes(info)
            value = self.known.get(name)
            if value is not None and value.size <= SMALL_CONSTANT_ELEMENTS:
                data[name] = onnxpb.from_array(value, name).SerializeToString()
        self.folded.node_inferences += 1
        try:
            outputs = schema._infer_node_outputs(node.SerializeToString(), types, data, {}, self.opsets,
                                                 max(self.model.ir_version, 4))
        except Exception:  # onnx raises InferenceError for inputs its function rejects
            return
        from atccheck.model.shapes import type_info

        for name, raw in outputs.items():
            info = type_info(onnxpb.TypeProto.FromString(raw))
            old = self.shapes.get(name)
            if info is not None and (old is None or _better(info, old)):
                self.shapes.values[name] = info
                self.changed(name)

    # ---- the whole graph

    def _full(self) -> bool:
        """Whole-graph inference with the values known now; True when it taught something new."""
        self.fresh = False
        refined = _infer_with(self.model, self.input_shapes, self.folded.values, self.shapes)
        self.folded.rounds += 1
        if refined is None:
            return False
        learnt = False
        for name, info in refined.items():
            old = self.shapes.get(name)
            if old is None or _better(info, old):
                self.shapes.values[name] = info
                self.changed(name)
                learnt = True
        return learnt


def _schema(op_type: str, opset: int, domain: str) -> Any:
    """The op's schema when it has an inference function, or None."""
    schema = onnx_schema(op_type, opset, domain)
    return schema if schema is not None and schema.has_type_and_shape_inference_function else None


_TYPES: dict[TensorInfo, bytes] = {}


def _type_bytes(info: TensorInfo) -> bytes:
    """The serialized TypeProto of a tensor's type and shape (symbols kept, unknown dims left unset)."""
    found = _TYPES.get(info)
    if found is None:
        from atccheck.model import onnxpb

        proto = onnxpb.TypeProto()
        tensor = proto.tensor_type
        tensor.elem_type = info.elem_type
        if info.shape is not None:
            shape = tensor.shape
            shape.SetInParent()
            for d in info.shape:
                dim = shape.dim.add()
                if isinstance(d, int) and d >= 0:
                    dim.dim_value = d
                elif isinstance(d, str) and d:
                    dim.dim_param = d
        found = proto.SerializeToString()
        if len(_TYPES) < 1 << 14:
            _TYPES[info] = found
    return found


def _elem_type(value: Any) -> int:
    from atccheck.model import onnxpb

    try:
        return int(onnxpb.from_array(value.reshape(-1)[:0]).data_type)
    except Exception:  # a numpy type ONNX has no number for
        return 0


def _agrees(info: TensorInfo | None, value: Any) -> bool:
    """A computed value must not contradict a static shape inference already knows."""
    if info is None or info.shape is None:
        return True
    if len(info.shape) != value.ndim:
        return False
    return all(not isinstance(d, int) or d < 0 or d == s for d, s in zip(info.shape, value.shape))


def _opset(graph: GraphIndex, domain: str) -> int:
    for entry in graph.model.opset_import:
        if entry.domain in STANDARD_DOMAINS and domain in STANDARD_DOMAINS:
            return entry.version
    return 1


def _shape_value(node: "onnx.NodeProto", info: TensorInfo) -> Any:
    import numpy as np

    dims = [int(d) for d in info.shape or ()]  # type: ignore[arg-type]
    if node.op_type == "Size":
        return np.array(int(np.prod(dims, dtype=np.int64)), dtype=np.int64)
    attrs = attribute_values(node)
    start, end = attrs.get("start", 0), attrs.get("end", len(dims))
    return np.array(dims[slice(start, end)], dtype=np.int64)


def _infer_with(
    model: "onnx.ModelProto",
    input_shapes: Mapping[str, tuple[int, ...]],
    values: Mapping[str, Any],
    previous: ShapeIndex,
) -> dict[str, TensorInfo] | None:
    """Shape inference on the weight-free copy with computed values as initializers."""
    from atccheck.model import onnxpb
    from atccheck.model.shapes import _collect, _data_prop_safe, stripped_copy

    copy = stripped_copy(model, input_shapes)
    graph = copy.graph
    for output in graph.output:  # declared output dims (-1, symbols) would win over what folding fixes
        if output.type.HasField("tensor_type") and (info := previous.get(output.name)) is not None \
                and not info.is_static:
            output.type.tensor_type.ClearField("shape")
    kept = [n for n in graph.node if not (n.output and all(not o or o in values for o in n.output))]
    del graph.node[:]
    graph.node.extend(kept)
    present = {t.name for t in graph.initializer}
    for name, value in values.items():
        if name not in present and value.size <= SMALL_CONSTANT_ELEMENTS:
            graph.initializer.append(onnxpb.from_array(value, name))
    try:
        inferred = onnxpb.infer_shapes(
            copy, check_type=False, strict_mode=False, data_prop=_data_prop_safe(copy))
    except Exception:
        return None
    found: dict[str, TensorInfo] = {}
    _collect(inferred.graph, found)
    return found


def _better(new: TensorInfo, old: TensorInfo) -> bool:
    """The new inference knows more: static where the old was not, or a rank where there was none."""
    if new.shape is None:
        return False
    if old.shape is None:
        return True
    return new.is_static and not old.is_static


# --------------------------------------------------------------------------- numpy evaluation
# ONNX semantics (onnx/onnx docs/Operators.md) for the ops shape computations use.


def _axes(args: list, attrs: dict, opset: int, since: int, index: int = 1) -> list[int] | None:
    if opset >= since:
        value = args[index] if len(args) > index else None
        return None if value is None else [int(a) for a in value.reshape(-1)]
    axes = attrs.get("axes")
    return None if axes is None else list(axes)


def _unsqueeze(args, attrs, opset):
    import numpy as np

    data, axes = args[0], _axes(args, attrs, opset, 13)
    rank = data.ndim + len(axes or ())
    out = data
    for axis in sorted(a + rank if a < 0 else a for a in axes or ()):
        out = np.expand_dims(out, axis)
    return [out]


def _squeeze(args, attrs, opset):
    import numpy as np

    data, axes = args[0], _axes(args, attrs, opset, 13)
    if axes is None:
        return [np.squeeze(data)]
    return [np.squeeze(data, axis=tuple(a + data.ndim if a < 0 else a for a in axes))]


def _gather(args, attrs, opset):
    import numpy as np

    data, indices = args[0], args[1].astype(np.int64)
    axis = attrs.get("axis", 0)
    return [np.take(data, indices, axis=axis, mode="raise") if indices.size else np.take(data, indices, axis=axis)]


def _slice(args, attrs, opset):
    import numpy as np

    data = args[0]
    if opset >= 10:
        starts, ends = args[1], args[2]
        axes = args[3] if len(args) > 3 and args[3] is not None else np.arange(len(starts))
        steps = args[4] if len(args) > 4 and args[4] is not None else np.ones(len(starts), np.int64)
    else:
        starts, ends = np.array(attrs["starts"]), np.array(attrs["ends"])
        axes = np.array(attrs.get("axes", range(len(starts))))
        steps = np.ones(len(starts), np.int64)
    index: list[slice] = [slice(None)] * data.ndim
    for s, e, a, st in zip(starts, ends, axes, steps):
        a = int(a) + data.ndim if a < 0 else int(a)
        index[a] = slice(int(s), int(e), int(st))
    return [data[tuple(index)]]


def _div(args, attrs, opset):
    import numpy as np

    a, b = args
    if np.issubdtype(a.dtype, np.integer):
        return [np.trunc(np.divide(a, b)).astype(a.dtype)]
    return [np.divide(a, b).astype(a.dtype)]


def _mod(args, attrs, opset):
    import numpy as np

    a, b = args
    return [np.fmod(a, b) if attrs.get("fmod", 0) else np.mod(a, b)]


def _cast(args, attrs, opset):
    from atccheck.model import onnxpb

    return [args[0].astype(onnxpb.np_dtype(attrs["to"]))]


def _concat(args, attrs, opset):
    import numpy as np

    return [np.concatenate([a for a in args if a is not None], axis=attrs.get("axis", 0))]


def _reshape(args, attrs, opset):
    import numpy as np

    data, shape = args[0], [int(d) for d in args[1]]
    if not attrs.get("allowzero", 0):
        shape = [data.shape[i] if d == 0 else d for i, d in enumerate(shape)]
    return [np.reshape(data, shape)]


def _expand(args, attrs, opset):
    import numpy as np

    data, shape = args[0], tuple(int(d) for d in args[1])
    return [data * np.ones(shape, dtype=data.dtype)]


def _constant_of_shape(args, attrs, opset):
    import numpy as np

    from atccheck.model import onnxpb

    tensor = attrs.get("value")
    fill = onnxpb.to_array(tensor).reshape(-1) if tensor is not None else np.zeros(1, np.float32)
    return [np.full(tuple(int(d) for d in args[0]), fill[0], dtype=fill.dtype)]


def _range(args, attrs, opset):
    import numpy as np

    start, limit, delta = (a.reshape(()) for a in args)
    return [np.arange(start, limit, delta, dtype=start.dtype)]


def _reduce(fn: Callable) -> Callable:
    def impl(args, attrs, opset):
        import numpy as np

        axes = _axes(args, attrs, opset, 18) if fn is not np.sum else _axes(args, attrs, opset, 13)
        if axes is None and attrs.get("noop_with_empty_axes", 0):
            return [args[0]]
        keep = bool(attrs.get("keepdims", 1))
        return [fn(args[0], axis=None if axes is None else tuple(axes), keepdims=keep)]

    return impl


def _where(args, attrs, opset):
    import numpy as np

    return [np.where(*args)]


def _elementwise(fn_name: str) -> Callable:
    def impl(args, attrs, opset):
        import numpy as np

        fn = getattr(np, fn_name)
        out = args[0]
        for other in args[1:]:
            out = fn(out, other)
        return [np.asarray(out).astype(args[0].dtype) if fn_name in _SAME_DTYPE else out]

    return impl


def _unary(fn_name: str) -> Callable:
    def impl(args, attrs, opset):
        import numpy as np

        return [getattr(np, fn_name)(args[0])]

    return impl


def _transpose(args, attrs, opset):
    import numpy as np

    return [np.transpose(args[0], attrs.get("perm"))]


def _tile(args, attrs, opset):
    import numpy as np

    return [np.tile(args[0], [int(r) for r in args[1]])]


def _identity(args, attrs, opset):
    return [args[0]]


def _nonzero(args, attrs, opset):
    import numpy as np

    return [np.array(np.nonzero(args[0]), dtype=np.int64)]


def _clip(args, attrs, opset):
    import numpy as np

    data = args[0]
    if opset < 11:
        low, high = attrs.get("min"), attrs.get("max")
    else:
        low = args[1] if len(args) > 1 and args[1] is not None else None
        high = args[2] if len(args) > 2 and args[2] is not None else None
    out = data
    if low is not None:
        out = np.maximum(out, np.asarray(low).astype(data.dtype))
    if high is not None:
        out = np.minimum(out, np.asarray(high).astype(data.dtype))
    return [np.asarray(out, dtype=data.dtype)]


def _relu(args, attrs, opset):
    import numpy as np

    return [np.maximum(args[0], np.zeros((), args[0].dtype))]


def _pow(args, attrs, opset):
    import numpy as np

    base, exponent = args
    if np.issubdtype(base.dtype, np.integer) and np.any(exponent < 0):
        raise ValueError("negative integer power")
    return [np.power(base, exponent.astype(base.dtype) if np.issubdtype(base.dtype, np.integer) else exponent)
            .astype(base.dtype)]


def _round(args, attrs, opset):
    import numpy as np

    return [np.round(args[0])]  # halves to even, as ONNX Round


def _reciprocal(args, attrs, opset):
    import numpy as np

    return [np.reciprocal(args[0].astype(args[0].dtype))]


def _sum(args, attrs, opset):
    out = args[0]
    for other in args[1:]:
        out = out + other
    return [out.astype(args[0].dtype)]


def _mean(args, attrs, opset):
    return [(_sum(args, attrs, opset)[0] / len(args)).astype(args[0].dtype)]


def _gather_elements(args, attrs, opset):
    import numpy as np

    data, indices = args[0], args[1].astype(np.int64)
    axis = attrs.get("axis", 0)
    axis = axis + data.ndim if axis < 0 else axis
    indices = np.where(indices < 0, indices + data.shape[axis], indices)
    return [np.take_along_axis(data, indices, axis=axis)]


def _scatter_nd(args, attrs, opset):
    import numpy as np

    if attrs.get("reduction", "none") != "none":
        raise ValueError("reduction")
    data, indices, updates = args[0].copy(), args[1].astype(np.int64), args[2]
    for index in np.ndindex(*indices.shape[:-1]):
        data[tuple(indices[index])] = updates[index]
    return [data]


def _split(args, attrs, opset):
    import numpy as np

    data = args[0]
    axis = attrs.get("axis", 0)
    axis = axis + data.ndim if axis < 0 else axis
    sizes = attrs.get("split") if opset < 13 else (args[1] if len(args) > 1 else None)
    if sizes is None and attrs.get("num_outputs"):
        count = int(attrs["num_outputs"])
        step = -(-data.shape[axis] // count)
        sizes = [min(step, data.shape[axis] - k * step) for k in range(count)]
    if sizes is None:
        raise ValueError("equal split: the output count is the node's, not the evaluator's")
    bounds = np.cumsum([int(s) for s in sizes])[:-1]
    return list(np.split(data, bounds, axis=axis))


def _flatten(args, attrs, opset):
    import numpy as np

    data = args[0]
    axis = attrs.get("axis", 1)
    axis = axis + data.ndim if axis < 0 else axis
    outer = int(np.prod(data.shape[:axis], dtype=np.int64))
    return [data.reshape(outer, -1) if data.size else data.reshape(outer, int(np.prod(data.shape[axis:])))]


_SAME_DTYPE = frozenset({"add", "subtract", "multiply", "minimum", "maximum"})


def _build_ops() -> dict[str, Callable]:
    import numpy as np

    return {
        "Add": _elementwise("add"),
        "Sub": _elementwise("subtract"),
        "Mul": _elementwise("multiply"),
        "Div": _div,
        "Mod": _mod,
        "Min": _elementwise("minimum"),
        "Max": _elementwise("maximum"),
        "Equal": _elementwise("equal"),
        "Less": _elementwise("less"),
        "LessOrEqual": _elementwise("less_equal"),
        "Greater": _elementwise("greater"),
        "GreaterOrEqual": _elementwise("greater_equal"),
        "And": _elementwise("logical_and"),
        "Or": _elementwise("logical_or"),
        "Not": _unary("logical_not"),
        "Neg": _unary("negative"),
        "Abs": _unary("abs"),
        "Floor": _unary("floor"),
        "Ceil": _unary("ceil"),
        "Sign": _unary("sign"),
        "Sqrt": _unary("sqrt"),
        "Identity": _identity,
        "Cast": _cast,
        "Gather": _gather,
        "Unsqueeze": _unsqueeze,
        "Squeeze": _squeeze,
        "Concat": _concat,
        "Slice": _slice,
        "Reshape": _reshape,
        "Expand": _expand,
        "ConstantOfShape": _constant_of_shape,
        "Range": _range,
        "ReduceProd": _reduce(np.prod),
        "ReduceSum": _reduce(np.sum),
        "ReduceMax": _reduce(np.max),
        "ReduceMin": _reduce(np.min),
        "Where": _where,
        "Transpose": _transpose,
        "Tile": _tile,
        "NonZero": _nonzero,
        "Clip": _clip,
        "Relu": _relu,
        "Pow": _pow,
        "Round": _round,
        "Reciprocal": _reciprocal,
        "Sum": _sum,
        "Mean": _mean,
        "Xor": _elementwise("logical_xor"),
        "GatherElements": _gather_elements,
        "ScatterND": _scatter_nd,
        "Split": _split,
        "Flatten": _flatten,
    }


class _LazyOps(dict):
    """The op table, built on first use so importing this module does not import numpy."""

    def get(self, key, default=None):  # type: ignore[override]
        if not self:
            self.update(_build_ops())
        return super().get(key, default)


_OPS: dict[str, Callable] = _LazyOps()
