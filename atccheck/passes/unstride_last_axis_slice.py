"""unstride-last-axis-slice: a Slice striding along the last axis, as a contiguous cut, a reshape and one column."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from atccheck.passes._rewrite import Emitter, NodeRewrite, Rewriter, Site, Unsupported
from atccheck.passes.base import FixLink, register_pass

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np


@register_pass
class UnstrideLastAxisSlice(NodeRewrite):
    """Take every k-th element of the last axis without a strided Slice there.

    For a Slice (opset 10 on) that a slice-step-on-last-axis finding names, with constant
    starts, ends, axes and steps and a static last-axis size W: the last axis's start and end
    are resolved as ONNX does (negative from the end, clamped to [0, W]), giving ``count``
    elements at step k. The node becomes

    1. the same Slice with step 1 on the last axis, cut to ``[start, start + count*k)``
       (other axes keep their own steps);
    2. a zero Pad at the end of the last axis when that range runs past W (the padding is
       never picked);
    3. Reshape to ``[..., count, k]``, Slice ``[0:1]`` on the new last axis (step 1), and
       Reshape to ``[..., count]``.

    Leading dims that are not static are copied by Reshape's 0. Bounds and steps computed from
    constants and static shapes (``Shape -> Gather`` chains) are evaluated first. When the
    last axis's size W is not static (boxes after a data-dependent NMS), the columns are
    gathered instead: ``Gather(x, Range(min(start, W), min(end, W), k), axis=-1)`` with W read
    by Shape at run time (bounds counted from the end are then left, with a note). Negative
    steps on the last axis (a reversal) are left as they are, with a note. Exact: elements are
    moved, never computed.
    """

    name = "unstride-last-axis-slice"
    stage = "repair"
    answers = (FixLink("slice-step-on-last-axis"),)
    op_types: ClassVar[frozenset[str] | None] = frozenset({"Slice"})
    safe = True
    tolerance = 0.0
    rtol = 0.0
    counted = "Slice node(s)"

    def rewrite(self, rw: Rewriter, site: Site) -> Emitter:
        data = site.input(0)
        info = rw.info(data)
        if info is None or info.shape is None:
            raise Unsupported(f"the shape of '{data}' is unknown")
        if not info.shape:
            raise Unsupported(f"'{data}' is a scalar")
        rank, width = len(info.shape), info.shape[-1]
        values = [_known(rw, site.input(i)) if site.input(i) else None for i in range(1, 5)]
        starts, ends, axes, steps = values
        if starts is None or ends is None or steps is None or (site.input(3) and axes is None):
            raise Unsupported("its starts, ends, axes and steps are not all constants (nor computed from constants "
                              "and static shapes)")
        begin, stop = [int(v) for v in starts.reshape(-1)], [int(v) for v in ends.reshape(-1)]
        step_list = [int(v) for v in steps.reshape(-1)]
        axis_list = [int(a) % rank for a in axes.reshape(-1)] if axes is not None else list(range(len(begin)))
        if rank - 1 not in axis_list:
            raise Unsupported("it does not slice the last axis")
        j = axis_list.index(rank - 1)
        step = step_list[j]
        if step < 1:
            raise Unsupported(f"the step on the last axis is {step}: a reversal has no step-1 form here")
        if not isinstance(width, int):
            return _gather_columns(rw, site, data, rank, begin, stop, axis_list, step_list, j)
        start = _resolve(begin[j], width)
        end = _resolve(stop[j], width)
        count = max(0, -(-(end - start) // step))
        if count == 0:
            raise Unsupported("it takes no element of the last axis")
        cut_end = min(start + count * step, width)
        begin[j], stop[j], step_list[j] = start, cut_end, 1

        em = Emitter(rw, site)
        cut = em.op("Slice", [data, em.ints(begin, "starts"), em.ints(stop, "ends"), em.ints(axis_list, "axes"),
                              em.ints(step_list, "steps")])
        missing = count * step - (cut_end - start)
        if missing:
            cut = em.pad(cut, [0] * (2 * rank - 1) + [missing])
        out = rw.info(site.output(0))
        known = out.shape[:-1] if out is not None and out.shape is not None else [None] * (rank - 1)
        lead = [d if isinstance(d, int) else 0 for d in known]  # 0: Reshape copies the input's dim
        grid = em.reshape(cut, lead + [count, step])
        column = em.slice(grid, [0], [1], [rank])
        em.reshape(column, lead + [count], out=site.output(0))
        return em


def _gather_columns(rw: Rewriter, site: Site, data: str, rank: int, begin: list[int], stop: list[int],
                    axis_list: list[int], step_list: list[int], j: int) -> Emitter:
    """The last axis of unknown size W: Gather the columns ``Range(min(start, W), min(end, W), step)``.

    W is read at run time (Shape); the other axes keep their own Slice. Bounds counted from the
    end (negative) would need W for more than a clamp: left as they are.
    """
    import numpy as np

    start, end, step = begin[j], stop[j], step_list[j]
    if start < 0 or end < 0:
        raise Unsupported("the size of the last axis is not static and its bounds count from the end")
    em = Emitter(rw, site)
    others = [k for k in range(len(axis_list)) if k != j]
    x = data
    if others:
        x = em.op("Slice", [data, em.ints([begin[k] for k in others], "starts"),
                            em.ints([stop[k] for k in others], "ends"), em.ints([axis_list[k] for k in others], "axes"),
                            em.ints([step_list[k] for k in others], "steps")])
    shape = em.op("Shape", [x])
    width = em.op("Gather", [shape, em.const(np.array(rank - 1, np.int64), "last")], axis=0)
    low = em.op("Min", [em.const(np.array(start, np.int64), "start"), width])
    high = em.op("Min", [em.const(np.array(min(end, np.iinfo(np.int64).max), np.int64), "end"), width])
    columns = em.op("Range", [low, high, em.const(np.array(step, np.int64), "step")])
    em.op("Gather", [x, columns], site.output(0), axis=rank - 1)
    return em


def _known(rw: Rewriter, name: str) -> "np.ndarray | None":
    """A constant input, or one computed from constants and static shapes (evaluated here)."""
    from atccheck.model.graph import GraphIndex
    from atccheck.passes.fold_resize_scales import NotFoldable, fold

    value = rw.const_value(name)
    if value is not None:
        return value
    try:
        return fold(name, GraphIndex(rw.model), rw.shapes, rw.opset)
    except NotFoldable:
        return None


def _resolve(index: int, size: int) -> int:
    """An ONNX Slice bound on an axis of ``size`` for a positive step: from the end when negative, clamped."""
    if index < 0:
        index += size
    return min(max(index, 0), size)
