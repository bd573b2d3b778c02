"""reverse-last-axis: a Slice stepping backwards along the last axis (torch.flip) as a Gather."""

from __future__ import annotations

from typing import ClassVar

from atccheck.passes._rewrite import Emitter, NodeRewrite, Rewriter, Site, Unsupported
from atccheck.passes.base import FixLink, register_pass
from atccheck.passes.unstride_last_axis_slice import _known


@register_pass
class ReverseLastAxis(NodeRewrite):
    """Rewrite a Slice with a negative step on the last axis as a Gather of constant indices.

    ``torch.flip(x, [-1])`` and ``x[..., ::-1]`` export as Slice with step -1 on the last axis,
    which the Slice page refuses (slice-step-on-last-axis). With constant bounds and a static
    last axis of size W, the indices are resolved as ONNX does for a negative step (start
    clamped to ``[0, W-1]``, end to ``[-1, W-1]``) and the last axis becomes
    ``Gather(x, [start, start+step, ...], axis=-1)``; the other axes keep their own Slice.

    Why Gather and not Ascend's reverse op: no ONNX op reaches ReverseV2 through the parser
    (``op_tables/registry.json`` maps none to it), and ReverseSequence, which the parser maps
    to the Ascend ReverseSequence kernel, reverses only along axis 0 or 1 (ONNX
    ``time_axis``). Gather (GatherV2) has AI Core kernels on every family. Exact: elements are
    moved, never computed. Left with a note: bounds not constant, W not static.
    """

    name = "reverse-last-axis"
    stage = "repair"
    # a negative step (the rule's data says reverses); unstride-last-axis-slice answers the other steps
    answers = (FixLink("slice-step-on-last-axis", "Slice", when={"reverses": (True,)}),)
    op_types: ClassVar[frozenset[str] | None] = frozenset({"Slice"})
    safe = True
    tolerance = 0.0
    rtol = 0.0
    counted = "Slice node(s)"

    def rewrite(self, rw: Rewriter, site: Site) -> Emitter:
        import numpy as np

        data = site.input(0)
        info = rw.info(data)
        if info is None or info.shape is None or not info.shape:
            raise Unsupported(f"the shape of '{data}' is unknown")
        rank, width = len(info.shape), info.shape[-1]
        if not isinstance(width, int):
            raise Unsupported("the size of the last axis is not static (give --input-shape)")
        values = [_known(rw, site.input(i)) if site.input(i) else None for i in range(1, 5)]
        starts, ends, axes, steps = values
        if starts is None or ends is None or steps is None or (site.input(3) and axes is None):
            raise Unsupported("its starts, ends, axes and steps are not all constants")
        begin, stop = [int(v) for v in starts.reshape(-1)], [int(v) for v in ends.reshape(-1)]
        step_list = [int(v) for v in steps.reshape(-1)]
        axis_list = [int(a) % rank for a in axes.reshape(-1)] if axes is not None else list(range(len(begin)))
        j = axis_list.index(rank - 1)
        step = step_list[j]
        start = min(max(begin[j] + width if begin[j] < 0 else begin[j], 0), width - 1)
        end = min(max(stop[j] + width if stop[j] < 0 else stop[j], -1), width - 1)
        indices = list(range(start, end, step))
        em = Emitter(rw, site)
        x = data
        others = [k for k in range(len(axis_list)) if k != j]
        if others:
            x = em.op("Slice", [data, em.ints([begin[k] for k in others], "starts"),
                                em.ints([stop[k] for k in others], "ends"),
                                em.ints([axis_list[k] for k in others], "axes"),
                                em.ints([step_list[k] for k in others], "steps")])
        em.op("Gather", [x, em.const(np.array(indices, np.int64), "indices")], site.output(0), axis=rank - 1)
        self.replaced.extend(i for i in site.node.input[1:] if i)
        return em
