"""The shapes Ascend's own infer-shape functions give outputs that ONNX leaves data-dependent.

ONNX says NonMaxSuppression's output has as many rows as boxes survive: a run-time length. The
2022 op proto of NonMaxSuppressionV6 sizes it from a constant ``max_output_boxes_per_class``
instead, and the kernel pads the rows it does not fill with -1. What each CANN line does, per
op, is data (``op_tables/infer_shapes.json``); this module reads a node against that data:
whether the fact's condition holds, and the static shape the fact's expression gives.
:func:`overrides` collects those shapes for the outputs ONNX left unknown, and
``folding.refine_shapes`` carries them to the nodes after (``engine.shapes_for``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from atccheck.domains import is_standard
from atccheck.model.graph import attribute_values
from atccheck.model.shapes import ShapeIndex, TensorInfo

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    import onnx

    from atccheck.tables import InferShapeFact, Tables

@dataclass(frozen=True)
class Reading:
    """A node read against its infer-shape fact."""

    fact: "InferShapeFact"
    holds: bool  # the fact says the outputs are static ('always', or 'when' with its condition met)
    failed: str | None  # why a 'when' condition does not hold: 'not-constant' or 'out-of-range'
    shapes: Mapping[int, tuple[int, ...]]  # output index -> the static shape the fact's expression gives


class Values:
    """What a node's inputs are known to be: shapes (inference and folding) and values (constants, folded)."""

    def __init__(self, shapes: ShapeIndex, value_of: "Mapping[str, np.ndarray] | None" = None,
                 const: "Any" = None) -> None:
        self.shapes = shapes
        self.value_of = value_of or {}
        self.const = const  # GraphIndex.const_value, or None

    def value(self, name: str) -> "np.ndarray | None":
        if not name:
            return None
        found = self.value_of.get(name)
        if found is None and self.const is not None:
            found = self.const(name)
        return found

    def shape(self, name: str) -> tuple[int, ...] | None:
        info = self.shapes.get(name) if name else None
        if info is None or not info.is_static:
            return None
        return tuple(int(d) for d in info.shape)  # type: ignore[arg-type,union-attr]


def read(node: "onnx.NodeProto", fact: "InferShapeFact", known: Values) -> Reading:
    """Whether the fact's condition holds for this node, and the static shapes it gives."""
    failed = _condition_fails(node, fact.when, known) if fact.when else None
    holds = fact.static == "always" or (fact.static == "when" and failed is None)
    shapes: dict[int, tuple[int, ...]] = {}
    if holds:
        attrs = attribute_values(node)
        for out in fact.outputs:
            shape = _shape(out.shape, node, attrs, known)
            if shape is not None:
                shapes[out.index] = shape
    return Reading(fact=fact, holds=holds, failed=failed, shapes=shapes)


def overrides(model: "onnx.ModelProto", tables: "Tables", profile: str, known: Values) -> dict[str, TensorInfo]:
    """Static shapes the profile's infer-shape facts give root-graph outputs that are not static yet."""
    found: dict[str, TensorInfo] = {}
    for node in model.graph.node:
        if not is_standard(node.domain):
            continue
        fact = tables.infer_shape(node.op_type, profile)
        if fact is None or fact.static not in ("always", "when"):
            continue
        open_outputs = [i for i, name in enumerate(node.output) if name and known.shape(name) is None]
        if not open_outputs:
            continue
        reading = read(node, fact, known)
        for index in open_outputs:
            shape = reading.shapes.get(index)
            if shape is None:
                continue
            name = node.output[index]
            info = known.shapes.get(name)
            found[name] = TensorInfo(info.elem_type if info is not None else 0, shape)
    return found


def _condition_fails(node: "onnx.NodeProto", when: Mapping[str, Any], known: Values) -> str | None:
    for index in when.get("constant_inputs", ()):
        name = node.input[index] if index < len(node.input) else ""
        if known.value(name) is None:
            return "not-constant"
    bounds = when.get("value_range")
    if bounds:
        value = _scalar(node, bounds["input"], known)
        if value is None or not bounds["min"] <= value <= bounds["max"]:
            return "out-of-range"
    return None


def _scalar(node: "onnx.NodeProto", index: int, known: Values) -> int | None:
    name = node.input[index] if index < len(node.input) else ""
    value = known.value(name)
    if value is None or value.size != 1:
        return None
    return int(value.reshape(-1)[0])


def _shape(expr: Any, node: "onnx.NodeProto", attrs: Mapping[str, Any], known: Values) -> tuple[int, ...] | None:
    if expr is None:
        return None
    try:
        if isinstance(expr, list):
            dims = [_dim(d, node, attrs, known) for d in expr]
            return None if any(d is None for d in dims) else tuple(int(d) for d in dims)  # type: ignore[arg-type]
        if "like" in expr:
            base = _input_shape(node, expr["like"], known)
            axis, dim = _dim(expr["axis"], node, attrs, known), _dim(expr["dim"], node, attrs, known)
            if base is None or axis is None or dim is None:
                return None
            out = list(base)
            out[axis + len(base) if axis < 0 else axis] = dim
            return tuple(out)
        if "broadcast" in expr:
            import numpy as np

            shapes = [_input_shape(node, i, known) for i in expr["broadcast"]]
            if any(s is None for s in shapes):
                return None
            return tuple(int(d) for d in np.broadcast_shapes(*shapes))  # type: ignore[arg-type]
    except (IndexError, ValueError):
        return None
    return None


def _input_shape(node: "onnx.NodeProto", index: int, known: Values) -> tuple[int, ...] | None:
    return known.shape(node.input[index]) if index < len(node.input) else None


def _dim(expr: Any, node: "onnx.NodeProto", attrs: Mapping[str, Any], known: Values) -> int | None:
    if isinstance(expr, int):
        return expr
    (key, arg), = expr.items()
    if key == "dim":
        shape = _input_shape(node, arg[0], known)
        return None if shape is None else shape[arg[1]]
    if key == "value":
        return _scalar(node, arg, known)
    if key in ("numel", "rank"):
        shape = _input_shape(node, arg, known)
        if shape is None:
            return None
        if key == "rank":
            return len(shape)
        count = 1
        for d in shape:
            count *= d
        return count
    if key == "attr":
        value = attrs.get(arg[0], arg[1])
        return int(value) if isinstance(value, int) else None
    parts = [_dim(item, node, attrs, known) for item in arg]
    if any(p is None for p in parts):
        return None
    if key == "mul":
        product = 1
        for p in parts:
            product *= p  # type: ignore[operator]
        return product
    return min(parts)  # type: ignore[type-var]
