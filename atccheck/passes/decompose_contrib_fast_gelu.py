"""decompose-contrib-fast-gelu: onnxruntime's com.microsoft FastGelu into Tanh arithmetic."""

from __future__ import annotations

from typing import ClassVar

from atccheck.passes._formulas import gelu_tanh
from atccheck.passes._rewrite import ContribDecomposition, Emitter, Rewriter, Site
from atccheck.passes.base import register_pass


@register_pass
class DecomposeContribFastGelu(ContribDecomposition):
    """Rewrite ``com.microsoft::FastGelu`` as ``Add`` (optional bias) and tanh-approximated Gelu.

    onnxruntime's FastGelu computes ``0.5 * X * (1 + tanh(0.797885 X + 0.035677 X^3))`` of
    ``X + bias`` (bias optional, broadcast over the last axis): the tanh Gelu formula, with
    sqrt(2/pi) = 0.797885 and 0.044715 * sqrt(2/pi) = 0.035677 (the op schema onnxruntime
    1.32 registers). No CANN profile registers the com.microsoft domain, and a second opset
    import alone fails every standard node (E16005), so every FastGelu is rewritten; the
    com.microsoft import is removed here once no node uses it. Exact up to float rounding.
    """

    name = "decompose-contrib-fast-gelu"
    op_types: ClassVar[frozenset[str] | None] = frozenset({"FastGelu"})
    tolerance = 1e-5
    counted = "FastGelu node(s)"

    def rewrite(self, rw: Rewriter, site: Site) -> Emitter | str:
        x, bias = site.input(0), site.input(1)
        elem = rw.float_type(x)
        em = Emitter(rw, site)
        total = em.op("Add", [x, bias]) if bias else x
        gelu_tanh(em, total, elem, out=site.output(0))
        return em
