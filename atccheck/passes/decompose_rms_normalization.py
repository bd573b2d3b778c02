"""decompose-rms-normalization: RMSNormalization (opset 23) into ReduceMean arithmetic."""

from __future__ import annotations

from typing import ClassVar

from atccheck.passes._rewrite import Decomposition, Emitter, Rewriter, Site
from atccheck.passes.base import FixLink, register_pass
from atccheck.passes.decompose_simplified_layer_normalization import rms_norm_rewrite

DEFAULT_EPSILON = 1e-5  # ONNX RMSNormalization-23


@register_pass
class DecomposeRmsNormalization(Decomposition):
    """Rewrite RMSNormalization (opset 23) as Mul/ReduceMean/Add/Sqrt/Div/Mul.

    The ONNX function body: ``X / sqrt(mean(X * X over axis..-1) + epsilon) * scale``,
    computed in ``stash_type`` (default float32, Casts around it for float16 input),
    epsilon default 1e-5, any ``axis`` (a non-negative one needs the input rank). No CANN
    profile registers RMSNormalization, and it has no earlier version, so convert-opset
    cannot lower a model that holds it until it is decomposed. Exact up to float rounding.
    """

    name = "decompose-rms-normalization"
    stage = "decompose"
    answers = (
        FixLink("unsupported-op", "RMSNormalization"),
        FixLink("opset-not-registered", "RMSNormalization"),
    )
    op_types: ClassVar[frozenset[str] | None] = frozenset({"RMSNormalization"})
    safe = True
    tolerance = 1e-5
    rtol = 1e-5
    counted = "RMSNormalization node(s)"

    def rewrite(self, rw: Rewriter, site: Site) -> Emitter | str:
        return rms_norm_rewrite(rw, site, DEFAULT_EPSILON)
