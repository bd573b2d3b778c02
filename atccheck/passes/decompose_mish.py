"""decompose-mish: Mish (opset 18) into x * Tanh(Softplus(x))."""

from __future__ import annotations

from typing import ClassVar

from atccheck.passes._rewrite import Decomposition, Emitter, Rewriter, Site
from atccheck.passes.base import FixLink, register_pass


@register_pass
class DecomposeMish(Decomposition):
    """Rewrite Mish as ``x * Tanh(Softplus(x))``.

    Applies to standard-domain ``Mish`` nodes the target profile does not register at the
    model opset (only the 9.x source registers Mish, at opset 18), or that a finding names
    this pass for. Softplus is used when the profile registers it at the model opset;
    otherwise (CANN 8.0 documents Softplus only up to opset 13 and its sources stop at 15)
    it is written ``Log(Exp(x) + 1)``: the same value, with Exp overflowing to +inf for
    large x, where Tanh gives 1 and the result x, as Mish does. Exact up to float rounding.
    """

    name = "decompose-mish"
    stage = "decompose"
    answers = (
        FixLink("unsupported-op", "Mish"),
        FixLink("opset-not-registered", "Mish"),
    )
    op_types: ClassVar[frozenset[str] | None] = frozenset({"Mish"})
    safe = True
    tolerance = 1e-5
    counted = "Mish node(s)"

    def rewrite(self, rw: Rewriter, site: Site) -> Emitter | str:
        softplus = rw.registered("Softplus")
        x = site.input(0)
        elem = rw.float_type(x)
        em = Emitter(rw, site)
        if softplus:
            soft = em.op("Softplus", [x])
        else:
            soft = em.op("Log", [em.op("Add", [em.op("Exp", [x]), em.scalar(1.0, elem, "one")])])
        em.op("Mul", [x, em.op("Tanh", [soft])], site.output(0))
        return em
