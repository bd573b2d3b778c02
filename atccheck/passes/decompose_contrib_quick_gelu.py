"""decompose-contrib-quick-gelu: onnxruntime's com.microsoft QuickGelu into x * Sigmoid(alpha x)."""

from __future__ import annotations

from typing import ClassVar

from atccheck.passes._rewrite import ContribDecomposition, Emitter, Rewriter, Site
from atccheck.passes.base import register_pass

# Default of QuickGelu's alpha in the schema onnxruntime registers (float 1.702).
QUICK_GELU_ALPHA = 1.702


@register_pass
class DecomposeContribQuickGelu(ContribDecomposition):
    """Rewrite ``com.microsoft::QuickGelu`` as ``x * Sigmoid(alpha * x)``.

    The formula and the ``alpha`` default (1.702) are those of the schema onnxruntime
    registers. With ``alpha`` = 1 the Mul is left out (SiLU). No CANN profile registers the
    com.microsoft domain, so every QuickGelu is rewritten; the com.microsoft import is
    removed here once no node uses it. Exact up to float rounding.
    """

    name = "decompose-contrib-quick-gelu"
    op_types: ClassVar[frozenset[str] | None] = frozenset({"QuickGelu"})
    tolerance = 1e-5
    counted = "QuickGelu node(s)"

    def rewrite(self, rw: Rewriter, site: Site) -> Emitter | str:
        x = site.input(0)
        elem = rw.float_type(x)
        alpha = float(site.attr("alpha", QUICK_GELU_ALPHA))
        em = Emitter(rw, site)
        scaled = x if alpha == 1.0 else em.op("Mul", [x, em.scalar(alpha, elem, "alpha")])
        em.op("Mul", [x, em.op("Sigmoid", [scaled])], site.output(0))
        return em
