"""float16-overflow: a value leaves float16's range where the precision mode computes in float16."""

from __future__ import annotations

from collections.abc import Iterable

from atccheck.context import CheckContext
from atccheck.findings import Finding, Severity
from atccheck.rules.base import Rule, register


@register
class Float16Overflow(Rule):
    """A value the model computes leaves float16's range under the precision mode, and the outputs change.

    ## What it does
    Runs only with ``check --numerics`` (and in ``fix``). The precision preflight decides each
    node's compute dtype as ATC's dtype selection does for ``--precision-mode`` on the chip (the
    mode's strategy, the chip's precision_reduce white/black/gray lists, the kernel's dtype
    list), runs the model with onnxruntime rounded to those dtypes at node boundaries, and
    compares with the float32 run on seeded random inputs (and ``--inputs``). It reports the
    node where a value first becomes inf or NaN while the float32 run stays finite, upstream of
    an output that no longer matches: the largest float32 magnitude there, float16's limit
    (65504), the mode and the chip. Nodes downstream inherit the inf and are not reported.

    ## Why
    ATC converts the model without a word; on the device the value saturates to inf and the
    outputs become NaN, zero or wrong. A LayerNorm written out as ops squares values of a few
    hundred; attention scores of large activations pass 65504 in the MatMul.

    ## Example
    ``Mul(x, 1000) -> ReduceMean -> Sub -> Pow(2)`` under the default force_fp16: the Pow
    gives 1.4e7, which is inf in float16, and the normalized output is all zeros.

    ## Fix
    Keep the node and the few after it in float32 with ``atc --keep_dtype=FILE``:
    ``--keep-dtype-out FILE`` writes the list the preflight found (simulated again until the
    outputs match), and the printed atc command names it. On chips with bfloat16 modes, the
    hint says when ``--precision_mode_v2=mixed_bfloat16`` keeps the outputs. Else convert
    with ``--precision_mode=must_keep_origin_dtype``.

    ## Facts
    ``op_tables/precision.json`` (each mode's dtype strategy from GE's fusion engine sources,
    the precision_reduce lists of the CANN 8.1.RC1 ops-info configs, the cube ops, the
    ``--keep_dtype`` format); ``op_tables/kernels.json`` (kernel dtype lists); float16's
    largest finite value 65504 (IEEE 754 binary16). What the simulation leaves out is in
    docs/numerics.md.
    """

    code = "AC312"
    name = "float16-overflow"
    severity = Severity.WARNING

    def check_model(self, ctx: CheckContext) -> Iterable[Finding]:
        result = ctx.numerics
        if result is None or result.error is not None:
            return
        from atccheck.precision.findings import SIMULATION_SOURCE, cause_data, cause_location, hint, outputs_text

        for cause in result.causes:
            if cause.kind != "overflow":
                continue
            at = "its output" if cause.largest_at == cause.value else f"its input '{cause.largest_at}'"
            dtype = cause.node.inputs if cause.largest_at != cause.value else cause.node.outputs
            message = (
                f"under {result.mode} on {result.soc} this {cause.node.op_type} computes in {dtype}, and {at} reaches "
                f"{cause.largest:.4g} in float32, beyond {dtype}'s largest finite value {cause.limit:g}: it becomes "
                f"inf, and the outputs follow ({outputs_text(result.before, cause.outputs)})"
            )
            yield self.finding(
                cause_location(ctx, cause), message, hint=hint(result),
                source=f"{SIMULATION_SOURCE}; op_tables/precision.json ({cause.node.basis})",
                data=cause_data(result, cause),
            )
