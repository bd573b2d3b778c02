"""decompose-hard-sigmoid: HardSigmoid into Mul/Add and a clamp, where the profile lacks it."""

from __future__ import annotations

from typing import ClassVar

from atccheck.passes._formulas import clamp
from atccheck.passes._rewrite import Decomposition, Emitter, Rewriter, Site
from atccheck.passes.base import FixLink, register_pass


@register_pass
class DecomposeHardSigmoid(Decomposition):
    """Rewrite HardSigmoid as ``Clip(x * alpha + beta, 0, 1)``.

    Applies only to ``HardSigmoid`` nodes the target profile does not register at the model
    opset (CANN 5.0 registers opsets 9-13, 6.0 up to 15, 8.0/9.0 up to 18), or that a finding
    names this pass for; everywhere else it does nothing. ``alpha`` and ``beta`` keep their
    values (defaults 0.2 and 0.5). The clamp is one Clip when the profile registers Clip at
    the model opset (bounds as attributes below opset 11, as inputs from 11), else Max then
    Min. Exact up to float rounding.
    """

    name = "decompose-hard-sigmoid"
    stage = "decompose"
    answers = (
        FixLink("unsupported-op", "HardSigmoid"),
        FixLink("opset-not-registered", "HardSigmoid", named=False),
    )
    op_types: ClassVar[frozenset[str] | None] = frozenset({"HardSigmoid"})
    safe = True
    tolerance = 1e-5
    counted = "HardSigmoid node(s)"

    def rewrite(self, rw: Rewriter, site: Site) -> Emitter | str:
        use_clip = rw.registered("Clip")
        x = site.input(0)
        elem = rw.float_type(x)
        em = Emitter(rw, site)
        scaled = em.op("Mul", [x, em.scalar(float(site.attr("alpha", 0.2)), elem, "alpha")])
        shifted = em.op("Add", [scaled, em.scalar(float(site.attr("beta", 0.5)), elem, "beta")])
        clamp(em, shifted, 0.0, 1.0, elem, use_clip, site.output(0))
        return em
