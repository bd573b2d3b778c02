"""non-negative-indices: constant Gather/ScatterND indices counted from the start instead of the end."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from atccheck.passes._graph import consumers
from atccheck.passes._rewrite import Emitter, NodeRewrite, Rewriter, Site, Unsupported
from atccheck.passes.base import FixLink, register_pass

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    import onnx

# indices are read from constants of at most this many elements (they are index lists, not weights)
MAX_INDICES = 1 << 20


@register_pass
class NonNegativeIndices(NodeRewrite):
    """Add the axis size to every negative constant index of a Gather or ScatterND a finding names.

    ONNX reads index ``-k`` as ``size - k``; the published pages say negative indices are not
    supported. For ``Gather`` the size is that of ``data`` along ``axis``; for ``ScatterND``
    each of the last dimension's components indexes one leading axis of ``data``. The node
    gets a new constant with the same values counted from the start (the old constant stays
    while anything else reads it). Needs constant indices and static sizes of the indexed
    axes; an index outside ``[-size, size)`` is left for onnxruntime and ATC to reject, since
    no rewrite gives it a meaning. Exact: the same elements are read or written.
    """

    name = "non-negative-indices"
    stage = "repair"
    answers = (FixLink("negative-indices"),)
    op_types: ClassVar[frozenset[str] | None] = frozenset({"Gather", "ScatterND"})
    safe = True
    tolerance = 0.0
    rtol = 0.0
    counted = "index input(s)"

    def rewrite(self, rw: Rewriter, site: Site) -> Emitter:
        import numpy as np
        import onnx

        indices = site.input(1)
        value = rw.const_value(indices, limit=MAX_INDICES)
        if value is None:
            raise Unsupported("its indices are not a constant")
        sizes = _indexed_sizes(rw, site, value)
        fixed = np.where(value < 0, value + sizes, value).astype(value.dtype)
        if (fixed < 0).any() or (fixed >= sizes).any():
            raise Unsupported(f"an index lies outside the axis (sizes {np.unique(sizes).tolist()})")
        emitter = Emitter(rw, site)
        node = onnx.NodeProto()
        node.CopyFrom(site.node)
        node.input[1] = emitter.const(fixed, "indices")
        emitter.nodes.append(node)
        self.replaced.append(indices)
        return emitter

    def finish(self, rw: Rewriter) -> None:
        _drop_unread_constants(rw.model, self.replaced)


def _indexed_sizes(rw: Rewriter, site: Site, value: "np.ndarray") -> "np.ndarray":
    """The size each index counts against: one number (Gather), or one per last-axis component (ScatterND)."""
    import numpy as np

    data = site.input(0)
    info = rw.info(data)
    shape = info.shape if info is not None else None
    if shape is None:
        raise Unsupported(f"the shape of '{data}' is unknown")
    if site.node.op_type == "Gather":
        axis = int(site.attr("axis", 0))
        axis = axis + len(shape) if axis < 0 else axis
        if not 0 <= axis < len(shape) or not isinstance(shape[axis], int):
            raise Unsupported(f"the size of axis {axis} of '{data}' is not static")
        return np.array(shape[axis], dtype=value.dtype)
    depth = value.shape[-1] if value.ndim else 0
    leading = list(shape[:depth])
    if depth == 0 or len(leading) < depth or not all(isinstance(d, int) for d in leading):
        raise Unsupported(f"the sizes of the first {depth} axes of '{data}' are not static")
    return np.array(leading, dtype=value.dtype)


def _drop_unread_constants(model: "onnx.ModelProto", names: list[str]) -> None:
    """Remove the Constant nodes that produced replaced indices, once nothing reads them."""
    from atccheck.passes._graph import iter_graphs

    gone = {name for name in names if consumers(model, name) == 0}  # graph outputs count as readers
    for graph in iter_graphs(model.graph):
        keep = [n for n in graph.node if not (n.op_type == "Constant" and n.output and n.output[0] in gone)]
        if len(keep) != len(graph.node):
            del graph.node[:]
            graph.node.extend(keep)
