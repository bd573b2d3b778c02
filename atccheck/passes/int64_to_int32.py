"""int64-to-int32: run int64 nodes the chip's kernels lack in int32 where every value provably fits."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.passes import _int64
from atccheck.passes.base import FixLink, FixPass, PassContext, PassResult, register_pass

if TYPE_CHECKING:  # pragma: no cover
    import onnx


@register_pass
class Int64ToInt32(FixPass):
    """Make nodes that a dtype finding flags for int64 compute in int32, when that is exact.

    For each node dtype-not-supported reports with an int64 input whose page or kernel takes
    int32, the inputs and outputs sharing that input's type (per the ONNX schema) move to
    int32: int64 constants are stored as int32, other inputs get a Cast to int32, and the
    outputs a Cast back to int64, so the rest of the graph is untouched (back-to-back rewritten
    nodes pass int32 straight on). It applies only when an interval analysis proves every one
    of those values fits int32: constants, sizes of static shapes, indices into static axes,
    casts from narrower types, and sums, products and moves of those. Values nothing bounds
    (a graph input, a data-dependent result) are left to int64-to-int32-unproven, which runs
    only with ``--unsafe-fixes``. The casts back to int64 may draw a warning of their own
    (the Cast page omits int64 outputs); the report lists findings added next to those removed.
    """

    name = "int64-to-int32"
    stage = "repair"
    answers = (FixLink("dtype-not-supported", when={"dtype": ("int64",)}, named=False),)
    safe = True
    tolerance = 0.0
    rtol = 0.0

    def wanted(self, findings) -> bool:
        return _int64.wanted(findings)

    def run(self, model: "onnx.ModelProto", ctx: PassContext) -> PassResult:
        return _int64.run_pass(model, ctx, require_proof=True)
