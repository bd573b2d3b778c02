"""A structural proof that a rewrite computes what the model before it did, with no run.

When a pass changed only names and shape annotations (and narrowed symbolic input dims to the
sizes the inputs below have), the nodes, attributes and weights are the same, so the outputs
are the same: :func:`same_computation`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    import onnx

    from atccheck.fixing.inputs import Feeds


def same_computation(before: "onnx.ModelProto", after: "onnx.ModelProto", feeds: "Sequence[Feeds]") -> bool:
    """True when ``after`` provably computes what ``before`` does on these inputs.

    Holds when the two differ only in node names, doc strings, value_info and output shape
    annotations, and in input dims that ``after`` fixed to exactly the sizes of every feed.
    """
    if list(before.opset_import) != list(after.opset_import) or list(before.functions) != list(after.functions):
        return False
    if not _same_graph(before.graph, after.graph, root=True):
        return False
    return _inputs_narrowed(before.graph, after.graph, feeds)


def _same_graph(a: "onnx.GraphProto", b: "onnx.GraphProto", root: bool) -> bool:
    if len(a.node) != len(b.node) or len(a.initializer) != len(b.initializer):
        return False
    if [o.name for o in a.output] != [o.name for o in b.output]:
        return False
    if [o.type.tensor_type.elem_type for o in a.output] != [o.type.tensor_type.elem_type for o in b.output]:
        return False
    if [i.name for i in a.input] != [i.name for i in b.input]:
        return False
    if not root and [i.type for i in a.input] != [i.type for i in b.input]:
        return False
    if list(a.sparse_initializer) != list(b.sparse_initializer):
        return False
    for x, y in zip(a.node, b.node):
        if not _same_node(x, y):
            return False
    # protobuf equality compares payloads in C without copying them out
    return all(x == y for x, y in zip(a.initializer, b.initializer))


def _same_node(x: "onnx.NodeProto", y: "onnx.NodeProto") -> bool:
    import onnx

    if (x.op_type, x.domain, list(x.input), list(x.output)) != (y.op_type, y.domain, list(y.input), list(y.output)):
        return False
    if len(x.attribute) != len(y.attribute):
        return False
    for p, q in zip(x.attribute, y.attribute):
        if p.name != q.name or p.type != q.type:
            return False
        if p.type == onnx.AttributeProto.GRAPH:
            if not _same_graph(p.g, q.g, root=False):
                return False
        elif p.type == onnx.AttributeProto.GRAPHS:
            if len(p.graphs) != len(q.graphs) or not all(_same_graph(g, h, False) for g, h in zip(p.graphs, q.graphs)):
                return False
        elif p != q:
            return False
    return True


def _inputs_narrowed(a: "onnx.GraphProto", b: "onnx.GraphProto", feeds: "Sequence[Feeds]") -> bool:
    init = {t.name for t in a.initializer}
    for old, new in zip(a.input, b.input):
        old_t, new_t = old.type.tensor_type, new.type.tensor_type
        if old.type.WhichOneof("value") != new.type.WhichOneof("value") or old_t.elem_type != new_t.elem_type:
            return False
        if old.name in init or not new_t.HasField("shape"):
            continue
        if old_t.HasField("shape") and len(old_t.shape.dim) != len(new_t.shape.dim):
            return False
        for axis, dim in enumerate(new_t.shape.dim):
            old_dim = old_t.shape.dim[axis] if old_t.HasField("shape") else None
            if old_dim is not None and old_dim.HasField("dim_value") and old_dim.dim_value >= 0:
                if not dim.HasField("dim_value") or dim.dim_value != old_dim.dim_value:
                    return False
                continue
            if dim.HasField("dim_value"):
                # newly fixed: every feed must have exactly this size there
                for feed in feeds:
                    array = feed.get(old.name)
                    if array is None or array.ndim <= axis or array.shape[axis] != dim.dim_value:
                        return False
    return True
