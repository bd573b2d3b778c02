"""Constant folding as ATC sees it: values computable before run time, and the shapes they fix.

ATC folds constant subgraphs at compile time (``--oo_constant_folding`` defaults to true), so
a shape computation such as ``Shape -> Gather -> Div -> Unsqueeze -> Concat -> Reshape`` never
reaches a kernel once the input shapes are static. ONNX shape inference (with data
propagation) follows only a few integer ops (Add, Mul, Gather, Concat, ...) and leaves the
shape after a ``Div`` or ``Where`` unknown, which hides everything downstream.

:func:`fold_shapes` evaluates the small values of the root graph that depend only on
constants and static shapes, with numpy, for the shape-arithmetic ops below; feeds them back
into ONNX shape inference on the weight-free copy as initializers; and repeats while new
shapes become static (a Shape of a Reshape's output folds once the Reshape's shape is known).
It never reads external weights, and never evaluates a tensor larger than
``MAX_FOLD_ELEMENTS``: it is an analysis, not a simplifier.
"""

from __future__ import annotations

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
    subgraphs,
)
from atccheck.model.shapes import ShapeIndex, TensorInfo

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    import onnx

# Values up to this many elements are evaluated (shape vectors, masks, small index tensors).
MAX_FOLD_ELEMENTS = 1 << 16
# Shape inference reruns at most this many times (each rerun can unlock one more level of
# Shape-of-a-computed-shape).
MAX_ROUNDS = 4


@dataclass
class Folded:
    """What folding found: computed values (names of non-constant node outputs) and refined shapes."""

    values: dict[str, "np.ndarray"] = field(default_factory=dict)
    shapes: ShapeIndex | None = None
    rounds: int = 0


def fold_shapes(
    model: "onnx.ModelProto",
    shapes: ShapeIndex,
    input_shapes: Mapping[str, tuple[int, ...]],
    graph: GraphIndex,
) -> Folded:
    """Evaluate foldable values and rerun shape inference with them until nothing new is learnt."""
    folded = Folded(shapes=shapes)
    known: dict[str, Any] = {}
    for name in graph.initializers:
        value = graph.const_value(name)
        if value is not None:
            known[name] = value
    nodes = list(model.graph.node)
    declared = input_shapes and any(not _is_static(shapes, o.name) for o in model.graph.output)
    for round_ in range(MAX_ROUNDS + 1):
        new = _evaluate(nodes, known, shapes, graph)
        folded.values.update(new)
        # graph outputs declared with -1 or symbols: inferred once more without the declaration
        again = bool(new) or (round_ == 0 and bool(declared))
        if not again or round_ == MAX_ROUNDS or all(info.is_static for info in shapes.values.values()):
            break
        if not any(not _is_static(shapes, out) for n in nodes for out in n.output if out):
            break
        refined = _infer_with(model, input_shapes, folded.values, shapes)
        folded.rounds += 1
        if refined is None:
            break
        shapes = folded.shapes = refined
    return folded


def _is_static(shapes: ShapeIndex, name: str) -> bool:
    info = shapes.get(name)
    return info is not None and info.is_static


def _evaluate(nodes: list, known: dict[str, Any], shapes: ShapeIndex, graph: GraphIndex) -> dict[str, Any]:
    """One pass in graph order; returns the values newly computed."""
    import numpy as np

    new: dict[str, Any] = {}
    for node in nodes:
        outputs = [o for o in node.output if o]
        if not outputs or all(o in known for o in outputs):
            continue
        if node.domain not in STANDARD_DOMAINS or node.op_type in NONDETERMINISTIC_OPS:
            continue
        if node.op_type == "Constant":
            value = graph.const_value(outputs[0])
            if value is not None:
                known[outputs[0]] = value
            continue
        if any(True for _ in subgraphs(node)):
            continue
        if node.op_type in ("Shape", "Size"):
            info = shapes.get(node.input[0]) if node.input else None
            if info is None or not info.is_static:
                continue
            results = [_shape_value(node, info)]
        else:
            impl = _OPS.get(node.op_type)
            inputs = list(node.input)
            if impl is None or any(name and name not in known for name in inputs):
                continue
            args = [known[name] if name else None for name in inputs]
            opset = _opset(graph, node.domain)
            try:
                with np.errstate(all="ignore"):
                    results = impl(args, attribute_values(node), opset)
            except Exception:  # an op this evaluator cannot compute: left unfolded
                continue
        for name, value in zip(node.output, results):
            if not name or value is None:
                continue
            value = np.asarray(value)
            if value.size > MAX_FOLD_ELEMENTS or value.dtype.kind in NOT_NUMBERS or not _agrees(shapes.get(name), value):
                continue  # (text is no value the rules read, and shape inference cannot take it back)
            known[name] = new[name] = value
    return new


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
) -> ShapeIndex | None:
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
    refined = ShapeIndex(values=dict(previous.values), error=previous.error)
    try:
        inferred = onnxpb.infer_shapes(
            copy, check_type=False, strict_mode=False, data_prop=_data_prop_safe(copy))
    except Exception:
        return None
    found: dict[str, TensorInfo] = {}
    _collect(inferred.graph, found)
    for name, info in found.items():
        old = refined.values.get(name)
        if old is None or _better(info, old):
            refined.values[name] = info
    return refined


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
    }


class _LazyOps(dict):
    """The op table, built on first use so importing this module does not import numpy."""

    def get(self, key, default=None):  # type: ignore[override]
        if not self:
            self.update(_build_ops())
        return super().get(key, default)


_OPS: dict[str, Callable] = _LazyOps()
