"""decompose-contrib-bias-gelu: onnxruntime's com.microsoft BiasGelu into Add + Erf arithmetic."""

from __future__ import annotations

from typing import ClassVar

from atccheck.passes._formulas import gelu_erf
from atccheck.passes._rewrite import ContribDecomposition, Emitter, Rewriter, Site
from atccheck.passes.base import register_pass


@register_pass
class DecomposeContribBiasGelu(ContribDecomposition):
    """Rewrite ``com.microsoft::BiasGelu`` as ``Add`` then the exact (Erf) Gelu formula.

    onnxruntime's BiasGelu is Gelu of ``A + B`` (its schema: "the sum of input A and bias
    input B as the input of Gelu activation"), with the Erf-based Gelu. No CANN profile
    registers the com.microsoft domain, so every BiasGelu is rewritten; the com.microsoft
    import is removed here once no node uses it. Exact up to float rounding.
    """

    name = "decompose-contrib-bias-gelu"
    op_types: ClassVar[frozenset[str] | None] = frozenset({"BiasGelu"})
    tolerance = 1e-5
    counted = "BiasGelu node(s)"

    def rewrite(self, rw: Rewriter, site: Site) -> Emitter | str:
        a, b = site.input(0), site.input(1)
        elem = rw.float_type(a)
        em = Emitter(rw, site)
        gelu_erf(em, em.op("Add", [a, b]), elem, out=site.output(0))
        return em
