"""decompose-contrib-skip-simplified-layer-normalization: com.microsoft SkipSimplifiedLayerNormalization into Add + RMS norm."""

from __future__ import annotations

from typing import ClassVar

from atccheck.passes._formulas import residual_sum, rms_normalize, scale_shift
from atccheck.passes._graph import consumers
from atccheck.passes._rewrite import ContribDecomposition, Emitter, Rewriter, Site
from atccheck.passes.base import register_pass

# Default epsilon of SkipSimplifiedLayerNormalization in the schema onnxruntime registers.
SKIP_SIMPLIFIED_EPSILON = 1e-12
STATISTICS_OUTPUTS = (1, 2)  # mean, inv_std_var: no ONNX-defined layout
SUM_OUTPUT = 3  # input_skip_bias_sum


@register_pass
class DecomposeContribSkipSimplifiedLayerNormalization(ContribDecomposition):
    """Rewrite ``com.microsoft::SkipSimplifiedLayerNormalization`` as Add(s) and RMS normalization.

    onnxruntime's op (written by its optimizer for T5/Llama-style models): ``s = input +
    skip (+ bias)``, output = ``s / sqrt(mean(s^2) + epsilon) * gamma`` over the last axis,
    epsilon default 1e-12; optional outputs ``mean``, ``inv_std_var``,
    ``input_skip_bias_sum`` (the schema onnxruntime 1.32 registers). The sum output is kept
    when named; a node whose ``mean`` or ``inv_std_var`` output is read is left with a note.
    Statistics in float32 (Casts around them for float16 input). Exact.
    """

    name = "decompose-contrib-skip-simplified-layer-normalization"
    op_types: ClassVar[frozenset[str] | None] = frozenset({"SkipSimplifiedLayerNormalization"})
    tolerance = 1e-5
    rtol = 1e-5
    counted = "SkipSimplifiedLayerNormalization node(s)"

    def rewrite(self, rw: Rewriter, site: Site) -> Emitter | str:
        from onnx import TensorProto

        used = [site.output(k) for k in STATISTICS_OUTPUTS if site.output(k) and consumers(rw.model, site.output(k))]
        if used:
            return f"its statistics output(s) {', '.join(used)} are read by other nodes"
        x, skip, gamma, bias = (site.input(k) for k in range(4))
        elem = rw.float_type(x)
        em = Emitter(rw, site)
        total = residual_sum(em, x, skip, bias, site.output(SUM_OUTPUT) or None)
        epsilon = float(site.attr("epsilon", SKIP_SIMPLIFIED_EPSILON))
        normalized = rms_normalize(em, total, [-1], epsilon, elem, stash=TensorProto.FLOAT)
        scale_shift(em, normalized, gamma, "", site.output(0))
        return em
