"""decompose-layer-normalization: LayerNormalization (opset 17+) into ReduceMean arithmetic."""

from __future__ import annotations

from typing import ClassVar

from atccheck.passes._formulas import negative_axis, normalize, scale_shift
from atccheck.passes._rewrite import Decomposition, Emitter, Rewriter, Site
from atccheck.passes.base import FixLink, register_pass


@register_pass
class DecomposeLayerNormalization(Decomposition):
    """Rewrite LayerNormalization as ReduceMean/Sub/Pow/ReduceMean/Add/Sqrt/Div/Mul/Add.

    Applies to standard-domain ``LayerNormalization`` nodes the target profile does not
    register at the model opset (CANN 5.0 and 6.0 have no plugin for it; 8.0 and 9.0 register
    only opsets 17 and 18), or that a finding names this pass for. Any ``axis`` (normalized
    over ``axis`` .. last, written as negative ReduceMean axes; a non-negative axis needs the
    input rank), with or without the bias ``B``, and ``stash_type``: when the input type
    differs from the stash type the statistics are computed after a Cast, as the ONNX
    function body does. The optional ``Mean`` and ``InvStdDev`` outputs are produced when
    the node names them (keepdims shape, stash type). ReduceMean takes ``axes`` as an
    attribute below opset 18 and as an input from 18. Exact up to float rounding.
    """

    name = "decompose-layer-normalization"
    stage = "decompose"
    answers = (
        FixLink("unsupported-op", "LayerNormalization"),
        FixLink("opset-not-registered", "LayerNormalization"),
    )
    op_types: ClassVar[frozenset[str] | None] = frozenset({"LayerNormalization"})
    safe = True
    tolerance = 1e-5
    counted = "LayerNormalization node(s)"

    def rewrite(self, rw: Rewriter, site: Site) -> Emitter | str:
        x, scale, bias = site.input(0), site.input(1), site.input(2)
        elem = rw.float_type(x)
        axis = negative_axis(rw, x, int(site.attr("axis", -1)))
        if isinstance(axis, str):
            return axis
        em = Emitter(rw, site)
        normalized = normalize(
            em,
            x,
            list(range(axis, 0)),
            float(site.attr("epsilon", 1e-5)),
            elem,
            stash=int(site.attr("stash_type", 1)),
            mean_out=site.output(1) or None,
            inv_std_out=site.output(2) or None,
        )
        scale_shift(em, normalized, scale, bias, site.output(0))
        return em
