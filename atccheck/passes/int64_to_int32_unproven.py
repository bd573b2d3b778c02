"""int64-to-int32-unproven: int64 nodes in int32 even where nothing proves the values fit (unsafe)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.passes import _int64
from atccheck.passes.base import FixLink, FixPass, PassContext, PassResult, register_pass

if TYPE_CHECKING:  # pragma: no cover
    import onnx


@register_pass
class Int64ToInt32Unproven(FixPass):
    """The rewrite of int64-to-int32 for the nodes it had to leave: values not proved to fit int32.

    Same rewrite (int32 inputs, casts back to int64 after the node), applied although an input
    comes from a graph input or a data-dependent computation, so a value beyond int32 (token
    ids past 2^31, products of large sizes) would wrap. Unsafe: runs only with
    ``--unsafe-fixes``; onnxruntime still compares the outputs on the verification inputs,
    which shows a wrong result only if those inputs reach the overflow.
    """

    name = "int64-to-int32-unproven"
    stage = "repair"
    answers = (FixLink("dtype-not-supported", when={"dtype": ("int64",)}, named=False),)
    safe = False
    tolerance = 0.0
    rtol = 0.0

    def wanted(self, findings) -> bool:
        return _int64.wanted(findings)

    def run(self, model: "onnx.ModelProto", ctx: PassContext) -> PassResult:
        return _int64.run_pass(model, ctx, require_proof=False)
