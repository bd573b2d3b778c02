"""Judging a mathematically exact rewrite where it rewrote: the float rounding bound of its arithmetic.

A safe pass computes the same mathematics as the nodes it replaces, in another order (a MatMul
where AffineGrid summed, ``Relu(x) + slope * Min(x, 0)`` where PRelu multiplied). Each order
rounds differently, and the nodes after the rewrite may magnify that difference without bound
(GridSample scales a grid coordinate by half the image width), so an output tolerance picked as
a constant rejects exact rewrites on some models. When a safe pass's outputs fail its tolerance,
:func:`rounding_check` judges the rewrite at the values it rewrote instead:

- the *rewritten values* are those the new nodes compute under a name the model before also
  computes (a decomposition keeps the output names of the node it replaces); every node after
  them is the same in both models, so the outputs differ only as far as these values do;
- both models are run once more with those values, and the inputs and outputs of the new nodes,
  as extra outputs (appended to the serialization: no copy of the model);
- the bound is ``2 * gamma(n) * M`` (``atccheck.numerics.RoundingBound``): ``n`` the rounded
  operations of the new nodes (the terms of a MatMul, Conv or reduction, one per arithmetic
  elementwise op, two per library function such as Exp or Erf, none for ops that only move or
  select values), ``M`` the largest magnitude they compute (for a product, the largest factors'
  product), ``u`` the unit roundoff of the values' dtype; the replaced nodes are taken to round
  as often as the new ones (hence 2).

The step holds when every rewritten value is within that bound. Nothing here decides a verdict
(``verifier``); a rewrite this cannot judge (no value kept its name, a rewrite inside an
If/Loop body, a model too large for bytes) gives a one-line reason.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING

from atccheck.fixing.inputs import Inputs, fitted
from atccheck.fixing.runtime import ModelSource, run_model
from atccheck.model.files import INLINE_LIMIT, approx_size
from atccheck.numerics import RoundingBound, gamma, unit_roundoff

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    import onnx

# A rewrite of more nodes than this is not judged value by value (every value it computes would be
# held at once).
MAX_NEW_NODES = 512

# Ops that only move, select or compare values: they never round.
NO_ROUNDING = frozenset({
    "Abs", "ArgMax", "ArgMin", "Compress", "Concat", "Constant", "ConstantOfShape", "DepthToSpace", "Equal",
    "Expand", "Flatten", "Gather", "GatherElements", "GatherND", "Greater", "GreaterOrEqual", "Identity", "Less",
    "LessOrEqual", "Max", "MaxPool", "Min", "Neg", "NonZero", "Not", "OneHot", "Pad", "Relu", "Reshape",
    "ScatterElements", "ScatterND", "Shape", "Sign", "Size", "Slice", "SpaceToDepth", "Split", "Squeeze", "Tile",
    "Transpose", "Trilu", "Unsqueeze", "Where",
})
# Library functions: within an ulp or two of the exact value, counted as two roundings.
LIBRARY = frozenset({"Atan", "Cos", "Cosh", "Erf", "Exp", "Log", "Pow", "Sigmoid", "Sin", "Sinh", "Softplus",
                     "Tan", "Tanh", "HardSigmoid", "Elu", "Selu", "Celu", "Gelu", "Mish"})
PRODUCTS = frozenset({"Mul", "MatMul", "Gemm", "Conv", "ConvTranspose", "Einsum"})
REDUCTIONS = frozenset({"ReduceSum", "ReduceMean", "ReduceSumSquare", "ReduceL1", "ReduceL2", "ReduceLogSumExp",
                        "ReduceLogSum", "ReduceProd", "Softmax", "LogSoftmax", "GlobalAveragePool", "AveragePool",
                        "CumSum"})


def rounding_check(before: "onnx.ModelProto", after: "onnx.ModelProto", after_data: bytes | None,
                   inputs: Inputs) -> "RoundingBound | str":
    """The rewritten values' largest difference and their rounding bound, or why none can be judged."""
    import numpy as np
    import onnx

    if list(before.opset_import) != list(after.opset_import) or list(before.functions) != list(after.functions):
        return "the opsets or the model's functions changed, so the nodes it kept may compute otherwise"
    if [(v.name, v.type.SerializeToString()) for v in before.graph.input] != \
            [(v.name, v.type.SerializeToString()) for v in after.graph.input] \
            or [v.name for v in before.graph.output] != [v.name for v in after.graph.output]:
        return "the graph's inputs or outputs changed"
    new_nodes = _new_nodes(before.graph, after.graph)
    if not new_nodes:
        return "no node of the main graph changed as written"
    if len(new_nodes) > MAX_NEW_NODES:
        return f"the rewrite is too large to judge value by value ({len(new_nodes)} new nodes, at most {MAX_NEW_NODES})"
    if any(a.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS) for n in new_nodes for a in n.attribute):
        return "the rewrite holds an If/Loop/Scan body, whose arithmetic is not counted"
    produced_before = {o for n in before.graph.node for o in n.output if o}
    rewritten = list(dict.fromkeys(o for n in new_nodes for o in n.output if o and o in produced_before))
    if not rewritten:
        return "no value the rewrite computes has a name the model before computes too"
    if approx_size(after) >= INLINE_LIMIT or approx_size(before) >= INLINE_LIMIT:
        return "the model is too large to run again with its rewritten values exposed"
    weights = {t.name: t for t in after.graph.initializer}
    region = [v for n in new_nodes for v in [*n.input, *n.output] if v and v not in weights]
    after_values = _run_exposing(after, after_data, [*rewritten, *region], inputs)
    before_values = _run_exposing(before, None, rewritten, inputs)

    def value(name: str, feeds: dict[str, "np.ndarray"]) -> "np.ndarray | None":
        if name in feeds:
            return feeds[name]
        if name in weights:
            return onnx.numpy_helper.to_array(weights[name])
        return None

    terms = 0
    magnitude = 0.0
    for node in new_nodes:
        node_terms, node_magnitude = 0, 0.0
        for feeds in after_values:
            arrays = [value(v, feeds) if v else None for v in node.input]
            outs = [value(v, feeds) if v else None for v in node.output]
            t, m = _node_rounding(node, arrays, outs)
            node_terms, node_magnitude = max(node_terms, t), max(node_magnitude, m)
        terms += node_terms
        magnitude = max(magnitude, node_magnitude)

    measured = 0.0
    roundoff = 0.0
    for old_set, new_set in zip(before_values, after_values):
        for name in rewritten:
            old, new = old_set.get(name), new_set.get(name)
            if old is None or new is None or old.shape != new.shape:
                return f"value '{name}' is not computed alike by both models"
            if np.issubdtype(old.dtype, np.floating):
                roundoff = max(roundoff, unit_roundoff(old.dtype))
                a, b = old.astype(np.float64), new.astype(np.float64)
                if (np.isnan(a) != np.isnan(b)).any():
                    measured = math.inf
                    continue
                with np.errstate(invalid="ignore"):
                    diff = np.where(np.isnan(a) | (a == b), 0.0, np.abs(a - b))
                measured = max(measured, float(diff.max()) if diff.size else 0.0)
            elif not np.array_equal(old, new):
                measured = math.inf
    bound = 2.0 * gamma(terms, roundoff) * magnitude
    return RoundingBound(tuple(rewritten), terms, magnitude, roundoff, measured, bound)


def _node_key(node: "onnx.NodeProto") -> tuple:
    return (node.op_type, node.domain, tuple(node.input), tuple(node.output),
            tuple(a.SerializeToString() for a in node.attribute))


def _new_nodes(before: "onnx.GraphProto", after: "onnx.GraphProto") -> "list[onnx.NodeProto]":
    """Nodes of ``after`` that ``before`` does not hold as they are, or that read a weight that changed."""
    old = {_node_key(n) for n in before.node}
    old_weights = {t.name: t for t in before.initializer}
    changed = {t.name for t in after.initializer if t.name in old_weights and old_weights[t.name] != t}
    return [n for n in after.node if _node_key(n) not in old or changed.intersection(n.input)]


def _run_exposing(model: "onnx.ModelProto", data: bytes | None, names: Iterable[str],
                  inputs: Inputs) -> "list[dict[str, np.ndarray]]":
    """Outputs of every input set, with ``names`` as extra outputs, plus the feeds themselves."""
    import onnx

    present = {o.name for o in model.graph.output} | {i.name for i in model.graph.input}
    extra = list(dict.fromkeys(n for n in names if n not in present))
    addition = onnx.ModelProto(graph=onnx.GraphProto(output=[onnx.ValueInfoProto(name=n) for n in extra]))
    source = ModelSource()
    # repeated fields of a serialized message concatenate: these outputs are appended to the graph's
    source.data = (data if data is not None else model.SerializeToString()) + addition.SerializeToString()
    fed = fitted(inputs, model)
    try:
        results = run_model(source, fed)
    finally:
        source.release()
    return [{**feeds, **outputs} for feeds, outputs in zip(fed.sets, results)]


def _node_rounding(node: "onnx.NodeProto", inputs: "list[np.ndarray | None]",
                   outputs: "list[np.ndarray | None]") -> tuple[int, float]:
    """How many rounded operations one output element of ``node`` takes, and the largest magnitude
    it computes (for a product, the product of its factors' largest magnitudes)."""
    import numpy as np

    def peak(array: "np.ndarray | None") -> float:
        if array is None or array.size == 0 or not np.issubdtype(array.dtype, np.floating):
            return 0.0
        finite = np.abs(array[np.isfinite(array)])
        return float(finite.max()) if finite.size else 0.0

    magnitude = max([peak(a) for a in [*inputs, *outputs]] or [0.0])
    op = node.op_type
    floats = [a for a in inputs if a is not None and np.issubdtype(a.dtype, np.floating)]
    if op in NO_ROUNDING or not floats and not any(o is not None and np.issubdtype(o.dtype, np.floating)
                                                  for o in outputs):
        return 0, magnitude
    if op in PRODUCTS and len(inputs) >= 2:
        magnitude = max(magnitude, peak(inputs[0]) * peak(inputs[1]))
    a = inputs[0] if inputs else None
    if op == "MatMul" and a is not None and a.ndim >= 1:
        return int(a.shape[-1]), magnitude
    if op == "Gemm" and a is not None and a.ndim == 2:
        trans = any(x.name == "transA" and x.i for x in node.attribute)
        return int(a.shape[0] if trans else a.shape[1]) + (1 if len(inputs) > 2 else 0), magnitude
    if op in ("Conv", "ConvTranspose") and len(inputs) > 1 and inputs[1] is not None:
        w = inputs[1]
        return int(np.prod(w.shape[1:])) + (1 if len(inputs) > 2 else 0), magnitude
    out = outputs[0] if outputs else None
    if op in ("Softmax", "LogSoftmax", "CumSum") and a is not None and a.ndim:
        axis = next((x.i for x in node.attribute if x.name == "axis"), -1)
        return int(a.shape[axis]) + 2, magnitude
    if op in REDUCTIONS and a is not None and out is not None and out.size:
        return max(1, a.size // out.size) + 1, magnitude
    if op in LIBRARY:
        return 2, magnitude
    return 1, magnitude
