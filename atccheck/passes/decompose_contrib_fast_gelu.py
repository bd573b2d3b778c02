"""decompose-contrib-fast-gelu: onnxruntime's com.microsoft FastGelu into Tanh arithmetic."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from atccheck.passes._formulas import gelu_tanh
from atccheck.passes._rewrite import CONTRIB_DOMAIN, Emitter, Rewriter, Site
from atccheck.passes.base import FixPass, PassContext, PassResult, register_pass

if TYPE_CHECKING:  # pragma: no cover
    import onnx


@register_pass
class DecomposeContribFastGelu(FixPass):
    """Rewrite ``com.microsoft::FastGelu`` as ``Add`` (optional bias) and tanh-approximated Gelu.

    onnxruntime's FastGelu computes ``0.5 * X * (1 + tanh(0.797885 X + 0.035677 X^3))`` of
    ``X + bias`` (bias optional, broadcast over the last axis): the tanh Gelu formula, with
    sqrt(2/pi) = 0.797885 and 0.044715 * sqrt(2/pi) = 0.035677 (the op schema onnxruntime
    1.32 registers). No CANN profile registers the com.microsoft domain, and a second opset
    import alone fails every standard node (E16005), so every FastGelu is rewritten; the
    com.microsoft import is removed here once no node uses it. Exact up to float rounding.
    """

    name = "decompose-contrib-fast-gelu"
    stage = "decompose"
    fixes: ClassVar[frozenset[str]] = frozenset({"custom-domain-op", "multiple-opset-imports"})
    op_types: ClassVar[frozenset[str] | None] = frozenset({"FastGelu"})
    safe = True
    tolerance = 1e-5

    def run(self, model: "onnx.ModelProto", ctx: PassContext) -> PassResult:
        rw = Rewriter(model, ctx, self.name)

        def rewrite(site: Site) -> Emitter | str | None:
            x, bias = site.input(0), site.input(1)
            elem = rw.float_type(x)
            em = Emitter(rw, site)
            total = em.op("Add", [x, bias]) if bias else x
            gelu_tanh(em, total, elem, out=site.output(0))
            return em

        rw.run(rewrite, self.op_types or (), domain=CONTRIB_DOMAIN)
        return rw.result("FastGelu node(s)")
