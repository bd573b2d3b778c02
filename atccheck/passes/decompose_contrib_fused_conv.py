"""decompose-contrib-fused-conv: onnxruntime's com.microsoft FusedConv into Conv (+ Add) + activation."""

from __future__ import annotations

from typing import ClassVar

from atccheck.passes._formulas import FUSED_ACTIVATIONS, activation
from atccheck.passes._rewrite import ContribDecomposition, Emitter, Rewriter, Site
from atccheck.passes.base import register_pass

FUSION_ATTRS = ("activation", "activation_params")


@register_pass
class DecomposeContribFusedConv(ContribDecomposition):
    """Rewrite ``com.microsoft::FusedConv`` as ``Conv``, ``Add`` of ``Z`` when given, then the activation.

    onnxruntime's graph optimizer (level "extended" and above) folds a Conv and the
    activation after it into FusedConv: the Conv attributes, plus ``activation`` (Relu,
    Tanh, Sigmoid, Silu, LeakyRelu, Clip, HardSigmoid) whose parameters are listed in
    ``activation_params`` (LeakyRelu: alpha; Clip: min, max; HardSigmoid: alpha, beta).
    The optional fourth input ``Z`` is added to the convolution before the activation. No
    activation means none. Other activation names are left with a note. The com.microsoft
    import is removed here once no node uses it. Exact.
    """

    name = "decompose-contrib-fused-conv"
    op_types: ClassVar[frozenset[str] | None] = frozenset({"FusedConv"})
    tolerance = 1e-5
    counted = "FusedConv node(s)"

    def rewrite(self, rw: Rewriter, site: Site) -> Emitter | str:
        x, w, b, z = (site.input(k) for k in range(4))
        elem = rw.float_type(x)
        kind = site.attr("activation", "")
        values = list(site.attr("activation_params", []) or [])
        params = dict(zip(FUSED_ACTIVATIONS.get(kind, ()), values))
        em = Emitter(rw, site)
        conv_attrs = {k: v for k, v in site.attrs(FUSION_ATTRS).items() if v not in ([], "")}
        last = not z and not kind
        result = em.op("Conv", [x, w, b] if b else [x, w], site.output(0) if last else None, **conv_attrs)
        if z:
            result = em.op("Add", [result, z], None if kind else site.output(0))
        if kind:
            activation(em, result, kind, params, elem, out=site.output(0))
        return em
