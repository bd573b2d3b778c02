"""fold-resize-scales: turn Resize scales/sizes computed from static shapes into constants."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.domains import STANDARD_DOMAINS
from atccheck.model.schema import input_names
from atccheck.passes._graph import Names, iter_graphs, opset_of, shapes_of
from atccheck.passes._repairs import remove_dead_nodes
from atccheck.passes.base import FixLink, FixPass, PassContext, PassResult, left, register_pass

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    import onnx

    from atccheck.model.graph import GraphIndex
    from atccheck.model.shapes import ShapeIndex

FOLDED_INPUTS = ("scales", "sizes")
# A folded scales/sizes tensor is a handful of numbers; anything larger is not what we fold here.
MAX_ELEMENTS = 64


class NotFoldable(Exception):
    pass


@register_pass
class FoldResizeScales(FixPass):
    """Replace a Resize ``scales`` or ``sizes`` input computed from static shapes by a constant.

    ATC reads ``scales``/``sizes`` at build time and the published operator page requires
    them constant. Exported models often compute them (``Shape -> Slice -> Mul -> Concat``).
    Once the input shapes are static the value is fixed: this pass evaluates it from the
    inferred shapes and the small constants it depends on (each node with onnx's reference
    evaluator, no weights read), stores it as an initializer and removes the nodes that only
    computed it. ``simplify`` usually folds these already; this pass covers the cases it did
    not reach (simplify skipped or reverted). Values that depend on input data are left, and
    the finding stays. Exact: the same numbers, computed ahead of time.
    """

    name = "fold-resize-scales"
    stage = "repair"
    answers = (FixLink("non-constant-input", "Resize", named=False),)
    safe = True
    tolerance = 0.0
    rtol = 0.0

    def run(self, model: "onnx.ModelProto", ctx: PassContext) -> PassResult:
        from onnx import numpy_helper

        from atccheck.model.graph import GraphIndex

        opset = opset_of(model)
        formal = input_names("Resize", opset) or []
        positions = [formal.index(n) for n in FOLDED_INPUTS if n in formal]
        shapes = shapes_of(model, ctx)
        index = GraphIndex(model)
        names = Names(model)
        folded: list[str] = []
        notes: list[str] = []
        touched: list["onnx.GraphProto"] = []
        for graph in iter_graphs(model.graph):
            changed = False
            for node in graph.node:
                if node.op_type != "Resize" or node.domain not in STANDARD_DOMAINS:
                    continue
                label = node.name or "Resize"
                for pos in positions:
                    value = node.input[pos] if pos < len(node.input) else ""
                    if not value or index.is_constant(value):
                        continue
                    try:
                        array = fold(value, index, shapes, opset)
                    except NotFoldable as exc:
                        notes.append(left(f"Resize '{label}' input {formal[pos]} left as is: {exc}", label))
                        continue
                    tensor = numpy_helper.from_array(array, names.fresh(f"{label}/{formal[pos]}"))
                    graph.initializer.append(tensor)
                    node.input[pos] = tensor.name
                    folded.append(f"{label}.{formal[pos]} = {array.tolist()}")
                    changed = True
            if changed:
                touched.append(graph)
        removed = sum(remove_dead_nodes(g) for g in touched)
        if folded:
            notes.insert(0, "folded " + "; ".join(folded[:5]) + (" ..." if len(folded) > 5 else "")
                         + (f"; {removed} node(s) that only computed them removed" if removed else ""))
        return PassResult(model, bool(folded), notes)


def fold(name: str, index: "GraphIndex", shapes: "ShapeIndex", opset: int | None) -> "np.ndarray":
    """The value of ``name`` from constants and static shapes; NotFoldable says why not."""
    memo: dict[str, "np.ndarray"] = {}
    return _value(name, index, shapes, opset, memo, depth=0)


def _value(name, index, shapes, opset, memo, depth) -> "np.ndarray":
    import numpy as np
    from onnx import AttributeProto

    if name in memo:
        return memo[name]
    if depth > 200:
        raise NotFoldable("the computation is too deep to fold")
    if index.is_constant(name):
        value = index.const_value(name)
        if value is None:
            raise NotFoldable(f"'{name}' is a large constant")
        memo[name] = value
        return value
    producer = index.producer.get(name)
    if producer is None:
        raise NotFoldable(f"it depends on the graph input '{name}'")
    node = producer.node
    if node.op_type in ("Shape", "Size") and node.domain in STANDARD_DOMAINS:
        info = shapes.get(node.input[0])
        if info is None or not info.is_static:
            raise NotFoldable(f"the shape of '{node.input[0]}' is not static")
        dims = np.array(info.shape, dtype=np.int64)
        if node.op_type == "Size":
            value = np.array(int(np.prod(dims)), dtype=np.int64)
        else:
            attrs = {a.name: a.i for a in node.attribute}
            rank = len(dims)
            start = attrs.get("start", 0)
            end = attrs.get("end", rank)
            value = dims[slice(start if start >= 0 else start + rank, end if end >= 0 else end + rank)]
        memo[name] = value
        return value
    if any(a.type in (AttributeProto.GRAPH, AttributeProto.GRAPHS) for a in node.attribute):  # control flow
        raise NotFoldable(f"it is computed inside {node.op_type} control flow")
    if node.op_type.startswith("Random"):
        raise NotFoldable("it is random")
    feeds = {i: _value(i, index, shapes, opset, memo, depth + 1) for i in node.input if i}
    outputs = _evaluate(node, feeds, opset)
    for out, array in zip(node.output, outputs):
        if out:
            memo[out] = np.asarray(array)
    if name not in memo:
        raise NotFoldable(f"{node.op_type} did not produce '{name}'")
    if memo[name].size > MAX_ELEMENTS:
        raise NotFoldable(f"'{name}' has {memo[name].size} elements")
    return memo[name]


def _evaluate(node: "onnx.NodeProto", feeds: dict, opset: int | None) -> list:
    from onnx.reference import ReferenceEvaluator

    try:
        evaluator = ReferenceEvaluator(node, opsets={"": opset or 13})
        outputs = evaluator.run(None, feeds)
    except Exception as exc:  # unsupported op in the reference runtime, bad values
        from atccheck.errors import one_line

        raise NotFoldable(f"{node.op_type} could not be evaluated: {one_line(exc)}") from None
    assert isinstance(outputs, list)  # without intermediate=True, run gives one value per output
    return outputs


