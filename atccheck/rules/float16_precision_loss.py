"""float16-precision-loss: the precision mode's float16 (or bfloat16) compute moves the outputs."""

from __future__ import annotations

from collections.abc import Iterable

from atccheck.context import CheckContext
from atccheck.findings import Finding, Location, Severity
from atccheck.rules.base import Rule, register


@register
class Float16PrecisionLoss(Rule):
    """The outputs deviate beyond the threshold under the precision mode, without an overflow.

    ## What it does
    Runs only with ``check --numerics`` (and in ``fix``), on the same simulation as
    float16-overflow: each graph output of the lowered run is compared with the float32 run by
    relative error (L2 norm of the difference over the L2 norm of the output) and cosine
    similarity, both shown. An output has lost precision when its relative error is above
    1e-2 or its cosine below 0.999 and some element moved by more than 1e-4 (an output that
    is not float: more than 1% of its elements differ). The finding sits on the node where the error first grows past 1e-2
    while every float input it reads is still within it, the cause (a cancellation such as
    ``x + c - c``, a long float16 sum); nodes downstream inherit the error and are not
    reported. When onnxruntime cannot run the model, one info says the preflight did not run.

    ## Why
    ATC converts the model and the device returns different numbers: a classifier's scores,
    a regression's values or a detector's boxes move by more than float16 rounding should.

    ## Example
    ``Add(x, 10000) -> Sub(., 10000)``: float16 holds 10000 + x only to a step of 8, so the
    difference keeps nothing of x (relative error near 1).

    ## Fix
    Keep the nodes the hint names in float32 with ``atc --keep_dtype=FILE``
    (``--keep-dtype-out FILE`` writes them; the list was simulated until the outputs were back
    within the threshold), or choose another precision mode as the hint says; else
    ``--precision_mode=must_keep_origin_dtype``.

    ## Facts
    ``op_tables/precision.json`` (the precision modes' dtype strategies and the chip's
    precision_reduce lists, from GE and the CANN 8.1.RC1 ops-info configs);
    ``op_tables/kernels.json`` (kernel dtype lists). The thresholds are atccheck's, stated in
    docs/numerics.md with what the simulation leaves out.
    """

    code = "AC313"
    name = "float16-precision-loss"
    severity = Severity.WARNING

    def check_model(self, ctx: CheckContext) -> Iterable[Finding]:
        result = ctx.numerics
        if result is None:
            return
        from atccheck.precision.findings import SIMULATION_SOURCE, cause_data, cause_location, hint, outputs_text

        if result.error is not None:
            yield self.finding(
                Location(), f"the precision preflight did not run under {result.mode} on {result.soc}: {result.error}",
                hint="give --inputs with arrays the model runs on, or check the model with onnxruntime",
                source=SIMULATION_SOURCE, severity=Severity.INFO, data={"precision_mode": result.mode, "error": result.error},
            )
            return
        for cause in result.causes:
            if cause.kind != "precision-loss":
                continue
            grew = f"from {cause.error_in:.2g} to {cause.error_out:.3g}" if cause.error_in > 0 else f"to {cause.error_out:.3g}"
            message = (
                f"under {result.mode} on {result.soc} this {cause.node.op_type} computes in {cause.node.inputs}, and "
                f"the relative error of '{cause.value}' grows here {grew} (threshold 1e-2); the outputs deviate "
                f"({outputs_text(result.before, cause.outputs)})"
            )
            yield self.finding(
                cause_location(ctx, cause), message, hint=hint(result),
                source=f"{SIMULATION_SOURCE}; op_tables/precision.json ({cause.node.basis})",
                data=cause_data(result, cause),
            )
