"""decompose-hard-swish: HardSwish (opset 14) into Add/Clip/Mul/Div, where the profile lacks it."""

from __future__ import annotations

from typing import ClassVar

from atccheck.passes._formulas import clamp
from atccheck.passes._rewrite import Decomposition, Emitter, Rewriter, Site
from atccheck.passes.base import FixLink, register_pass


@register_pass
class DecomposeHardSwish(Decomposition):
    """Rewrite HardSwish as ``x * Clip(x + 3, 0, 6) / 6``.

    HardSwish-14 is ``x * max(0, min(1, x/6 + 1/2))``; multiplied through by 6 this is the
    form exporters write for opsets below 14. Applies only to ``HardSwish`` nodes the target
    profile does not register at the model opset (CANN 5.0 lists it for opsets 9-13 only,
    which no HardSwish node can have; 6.0 registers 14-15, 8.0/9.0 14-18), or that a finding
    names this pass for; everywhere else it does nothing. The clamp is one Clip (bounds as
    inputs) when the profile registers Clip at the model opset, else Max then Min. Exact up
    to float rounding.
    """

    name = "decompose-hard-swish"
    stage = "decompose"
    answers = (
        FixLink("unsupported-op", "HardSwish"),
        FixLink("opset-not-registered", "HardSwish"),
    )
    op_types: ClassVar[frozenset[str] | None] = frozenset({"HardSwish"})
    safe = True
    tolerance = 1e-5
    counted = "HardSwish node(s)"

    def rewrite(self, rw: Rewriter, site: Site) -> Emitter | str:
        use_clip = rw.registered("Clip")
        x = site.input(0)
        elem = rw.float_type(x)
        em = Emitter(rw, site)
        gate = clamp(em, em.op("Add", [x, em.scalar(3.0, elem, "three")]), 0.0, 6.0, elem, use_clip)
        em.op("Div", [em.op("Mul", [x, gate]), em.scalar(6.0, elem, "six")], site.output(0))
        return em
