"""decompose-contrib-skip-layer-normalization: com.microsoft SkipLayerNormalization into Add + LayerNorm arithmetic."""

from __future__ import annotations

from typing import ClassVar

from atccheck.passes._formulas import normalize, residual_sum, scale_shift
from atccheck.passes._graph import consumers
from atccheck.passes._rewrite import ContribDecomposition, Emitter, Rewriter, Site
from atccheck.passes.base import register_pass

# Default epsilon of SkipLayerNormalization in the schema onnxruntime registers.
SKIP_LAYER_NORM_EPSILON = 1e-12
STATISTICS_OUTPUTS = (1, 2)  # mean, inv_std_var: training outputs with no ONNX-defined layout
SUM_OUTPUT = 3  # input_skip_bias_sum


@register_pass
class DecomposeContribSkipLayerNormalization(ContribDecomposition):
    """Rewrite ``com.microsoft::SkipLayerNormalization`` as Add(s) and layer normalization.

    onnxruntime's op: ``s = input + skip (+ bias)``, output = LayerNorm of ``s`` over the
    last axis, times ``gamma`` (+ ``beta``), epsilon default 1e-12; optional outputs
    ``mean``, ``inv_std_var`` and ``input_skip_bias_sum`` (the schema onnxruntime 1.32
    registers). The sum output is kept when the node names it. A node whose ``mean`` or
    ``inv_std_var`` output is read by anything is left untouched, with a note: their layout
    is not part of any ONNX definition. Statistics are computed in float32 (Casts around
    them for float16 input), like the standard LayerNormalization's default stash type. The
    com.microsoft import is removed here once no node uses it. Exact up to float rounding.
    """

    name = "decompose-contrib-skip-layer-normalization"
    op_types: ClassVar[frozenset[str] | None] = frozenset({"SkipLayerNormalization"})
    tolerance = 1e-5
    counted = "SkipLayerNormalization node(s)"

    def rewrite(self, rw: Rewriter, site: Site) -> Emitter | str:
        from onnx import TensorProto

        used = [site.output(k) for k in STATISTICS_OUTPUTS if site.output(k) and consumers(rw.model, site.output(k))]
        if used:
            return f"its statistics output(s) {', '.join(used)} are read by other nodes"
        x, skip, gamma, beta, bias = (site.input(k) for k in range(5))
        elem = rw.float_type(x)
        em = Emitter(rw, site)
        total = residual_sum(em, x, skip, bias, site.output(SUM_OUTPUT) or None)
        epsilon = float(site.attr("epsilon", SKIP_LAYER_NORM_EPSILON))
        normalized = normalize(em, total, [-1], epsilon, elem, stash=TensorProto.FLOAT)
        scale_shift(em, normalized, gamma, beta, site.output(0))
        return em
