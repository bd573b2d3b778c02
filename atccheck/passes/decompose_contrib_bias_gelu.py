"""decompose-contrib-bias-gelu: onnxruntime's com.microsoft BiasGelu into Add + Erf arithmetic."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from atccheck.passes._formulas import gelu_erf
from atccheck.passes._rewrite import CONTRIB_DOMAIN, Emitter, Rewriter, Site
from atccheck.passes.base import FixPass, PassContext, PassResult, register_pass

if TYPE_CHECKING:  # pragma: no cover
    import onnx


@register_pass
class DecomposeContribBiasGelu(FixPass):
    """Rewrite ``com.microsoft::BiasGelu`` as ``Add`` then the exact (Erf) Gelu formula.

    onnxruntime's BiasGelu is Gelu of ``A + B`` (its schema: "the sum of input A and bias
    input B as the input of Gelu activation"), with the Erf-based Gelu. No CANN profile
    registers the com.microsoft domain, so every BiasGelu is rewritten; the com.microsoft
    import is removed here once no node uses it. Exact up to float rounding.
    """

    name = "decompose-contrib-bias-gelu"
    stage = "decompose"
    fixes: ClassVar[frozenset[str]] = frozenset({"custom-domain-op", "multiple-opset-imports"})
    op_types: ClassVar[frozenset[str] | None] = frozenset({"BiasGelu"})
    safe = True
    tolerance = 1e-5

    def run(self, model: "onnx.ModelProto", ctx: PassContext) -> PassResult:
        rw = Rewriter(model, ctx, self.name)

        def rewrite(site: Site) -> Emitter | str | None:
            a, b = site.input(0), site.input(1)
            elem = rw.float_type(a)
            em = Emitter(rw, site)
            gelu_erf(em, em.op("Add", [a, b]), elem, out=site.output(0))
            return em

        rw.run(rewrite, self.op_types or (), domain=CONTRIB_DOMAIN)
        return rw.result("BiasGelu node(s)")
