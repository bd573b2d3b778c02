"""decompose-contrib-fused-gemm: onnxruntime's com.microsoft FusedGemm into Gemm + activation."""

from __future__ import annotations

from typing import ClassVar

from atccheck.passes._formulas import FUSED_ACTIVATIONS, activation
from atccheck.passes._rewrite import ContribDecomposition, Emitter, Rewriter, Site
from atccheck.passes.base import register_pass

ACTIVATION_PREFIX = "activation_"


@register_pass
class DecomposeContribFusedGemm(ContribDecomposition):
    """Rewrite ``com.microsoft::FusedGemm`` as ``Gemm`` then the activation.

    onnxruntime's graph optimizer (level "extended" and above) folds a Gemm and the
    activation after it into FusedGemm: the Gemm attributes plus ``activation`` whose
    parameters are ``activation_alpha``, ``activation_beta``, ``activation_gamma``
    (LeakyRelu, Elu, ThresholdedRelu: alpha; HardSigmoid: alpha, beta; Selu: alpha, gamma).
    A parameter left out takes the standard op's default. Other activation names are left
    with a note. The com.microsoft import is removed here once no node uses it. Exact.
    """

    name = "decompose-contrib-fused-gemm"
    op_types: ClassVar[frozenset[str] | None] = frozenset({"FusedGemm"})
    tolerance = 1e-5
    counted = "FusedGemm node(s)"

    def rewrite(self, rw: Rewriter, site: Site) -> Emitter | str:
        elem = rw.float_type(site.input(0))
        kind = site.attr("activation", "")
        attrs = site.attrs()
        fused = {k: v for k, v in attrs.items() if k.startswith(ACTIVATION_PREFIX)}
        params = {k[len(ACTIVATION_PREFIX):]: float(v) for k, v in fused.items()}
        params = {k: v for k, v in params.items() if k in FUSED_ACTIVATIONS.get(kind, ())}
        gemm_attrs = {k: v for k, v in attrs.items() if k != "activation" and k not in fused}
        inputs = [i for i in site.node.input]
        while inputs and not inputs[-1]:
            inputs.pop()
        em = Emitter(rw, site)
        result = em.op("Gemm", inputs, None if kind else site.output(0), **gemm_attrs)
        if kind:
            activation(em, result, kind, params, elem, out=site.output(0))
        return em
