"""decompose-simplified-layer-normalization: onnxruntime's SimplifiedLayerNormalization (RMS norm) into ReduceMean arithmetic."""

from __future__ import annotations

from typing import ClassVar

from atccheck.passes._formulas import negative_axis, rms_normalize, scale_shift
from atccheck.passes._rewrite import Decomposition, Emitter, Rewriter, Site
from atccheck.passes.base import FixLink, register_pass

DEFAULT_EPSILON = 1e-5  # the schema onnxruntime 1.32 registers


@register_pass
class DecomposeSimplifiedLayerNormalization(Decomposition):
    """Rewrite SimplifiedLayerNormalization as Mul/ReduceMean/Add/Sqrt/Div/Mul.

    onnxruntime's optimizer (level "extended" and above) fuses the RMS normalization of
    T5/Llama-style models into ``SimplifiedLayerNormalization``, an op onnxruntime registers
    in the standard domain (opset 1) although ONNX defines none: no CANN profile has it.
    ``Y = X / sqrt(mean(X^2 over axis..-1) + epsilon) * scale``, statistics in ``stash_type``
    (default float32), epsilon default 1e-5, any ``axis`` (a non-negative one needs the input
    rank). The optional ``inv_std_var`` output (1/rms, keepdims shape, stash type) is
    produced when named. Exact up to float rounding.
    """

    name = "decompose-simplified-layer-normalization"
    stage = "decompose"
    answers = (
        FixLink("unsupported-op", "SimplifiedLayerNormalization"),
        FixLink("opset-not-registered", "SimplifiedLayerNormalization", named=False),
    )
    op_types: ClassVar[frozenset[str] | None] = frozenset({"SimplifiedLayerNormalization"})
    safe = True
    tolerance = 1e-5
    rtol = 1e-5
    counted = "SimplifiedLayerNormalization node(s)"

    def rewrite(self, rw: Rewriter, site: Site) -> Emitter | str:
        return rms_norm_rewrite(rw, site, DEFAULT_EPSILON, inv_rms_out=site.output(1) or None)


def rms_norm_rewrite(rw: Rewriter, site: Site, default_epsilon: float, inv_rms_out: str | None = None) -> Emitter | str:
    """The RMS normalization of (X, scale) with the node's axis, epsilon and stash_type."""
    x, scale = site.input(0), site.input(1)
    elem = rw.float_type(x)
    axis = negative_axis(rw, x, int(site.attr("axis", -1)))
    if isinstance(axis, str):
        return axis
    em = Emitter(rw, site)
    normalized = rms_normalize(em, x, list(range(axis, 0)), float(site.attr("epsilon", default_epsilon)), elem,
                               stash=int(site.attr("stash_type", 1)), inv_rms_out=inv_rms_out)
    scale_shift(em, normalized, scale, "", site.output(0))
    return em
