"""decompose-contrib-gelu: onnxruntime's com.microsoft Gelu into Erf arithmetic."""

from __future__ import annotations

from typing import ClassVar

from atccheck.passes._formulas import gelu_erf
from atccheck.passes._rewrite import ContribDecomposition, Emitter, Rewriter, Site
from atccheck.passes.base import register_pass


@register_pass
class DecomposeContribGelu(ContribDecomposition):
    """Rewrite ``com.microsoft::Gelu`` as ``0.5 * x * (1 + Erf(x / sqrt(2)))``.

    onnxruntime's graph optimizer (level "extended" and above) fuses the Erf form of Gelu
    that exporters write below opset 20 into its own ``com.microsoft::Gelu`` (the exact,
    Erf-based Gelu). This writes the Erf form back. The com.microsoft import is removed here
    once no node uses it. Exact.
    """

    name = "decompose-contrib-gelu"
    op_types: ClassVar[frozenset[str] | None] = frozenset({"Gelu"})
    tolerance = 1e-5
    counted = "Gelu node(s)"

    def rewrite(self, rw: Rewriter, site: Site) -> Emitter | str:
        x = site.input(0)
        elem = rw.float_type(x)
        em = Emitter(rw, site)
        gelu_erf(em, x, elem, out=site.output(0))
        return em
