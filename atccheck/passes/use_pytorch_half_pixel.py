"""use-pytorch-half-pixel: a Resize's half_pixel coordinates written as pytorch_half_pixel where the two agree."""

from __future__ import annotations

from typing import ClassVar

from atccheck.passes._rewrite import Emitter, NodeRewrite, Rewriter, Site
from atccheck.passes.base import FixLink, register_pass

MODE = "coordinate_transformation_mode"


@register_pass
class UsePytorchHalfPixel(NodeRewrite):
    """Write a Resize's ``half_pixel`` coordinate mode as ``pytorch_half_pixel`` where they agree.

    CANN 8.0/9.0 accept only ``align_corners`` and ``pytorch_half_pixel`` on a 5-D Resize
    (the Resize page, ``op_tables/attr_limits.json``). The ONNX definitions of the two modes
    differ only on an axis resized to length 1: ``half_pixel`` maps its one output to
    ``0.5 / scale - 0.5``, ``pytorch_half_pixel`` to 0; these agree when that axis also had
    length 1 (scale 1). So for a Resize an attr-out-of-range finding names this pass for,
    with static input and output shapes in which every axis has an output longer than 1 or
    keeps its length, the attribute is renamed; otherwise the node is left with a note.
    No other coordinate mode has an equivalent (their findings say ``manual``). Exact: the
    same coordinates are computed.
    """

    name = "use-pytorch-half-pixel"
    stage = "repair"
    answers = (
        FixLink("attr-out-of-range", "Resize", when={"attr": ("coordinate_transformation_mode",), "value": ("half_pixel",)}),
        FixLink("attr-out-of-range", "Resize", named=False),
    )
    op_types: ClassVar[frozenset[str] | None] = frozenset({"Resize"})
    safe = True
    tolerance = 0.0
    rtol = 0.0
    counted = "Resize node(s)"

    def rewrite(self, rw: Rewriter, site: Site) -> Emitter | str | None:
        if site.attr(MODE, "half_pixel") != "half_pixel":
            return None
        before, after = rw.static_shape(site.input(0)), rw.static_shape(site.output(0))
        if before is None or after is None or len(before) != len(after):
            return "the input and output shapes must be static to prove half_pixel equals pytorch_half_pixel"
        collapsed = [axis for axis, (a, b) in enumerate(zip(before, after)) if b == 1 and a != 1]
        if collapsed:
            return f"axis {collapsed[0]} is resized to length 1, where half_pixel and pytorch_half_pixel differ"
        attrs = site.attrs()
        attrs[MODE] = "pytorch_half_pixel"
        em = Emitter(rw, site)
        em.op("Resize", list(site.node.input), list(site.node.output), **attrs)
        return em
