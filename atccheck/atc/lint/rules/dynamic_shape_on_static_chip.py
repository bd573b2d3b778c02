"""dynamic-shape-on-static-chip: -1 without a gear option, or a range, in ``--input_shape`` for a chip that cannot compile dynamic shapes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.atc.lint.context import dynamic_shape_problems
from atccheck.atc.lint.rule import CommandRule
from atccheck.atc.spec import gear_option_for
from atccheck.findings import Severity
from atccheck.registry import register

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.atc.lint.context import CommandContext
    from atccheck.atc.lint.parse import ParsedCommand


@register
class DynamicShapeOnStaticChip(CommandRule):
    """-1 without a gear option, or a range, in ``--input_shape`` for a chip that cannot compile dynamic shapes.

    ## What it does
    With a chip (``--soc_version`` or ``--soc``), reports the first input whose shape keeps -1
    without a gear option, or a ``lo~hi`` range, when the chip's facts say it has no
    dynamic-shape compilation (Ascend310, Ascend310B, IPV350). The hint names the gear option
    that fits the -1 axes. On a chip that compiles dynamic shapes it stays silent;
    ``dynamic-shape-not-in-release`` covers releases that do not accept the form.

    ## Why
    -1 without gears, or a range, asks for dynamic-shape compilation. These chips do not have it:
    the conversion fails later with EZ3002 "...Dynamic shape is not supported on this chip!".

    ## Example
    ``--input_shape="image:-1,3,224,224"`` with ``--soc_version=Ascend310B4``.

    ## Fix
    Give static shapes, or gears: ``--dynamic_batch_size`` when only axis 0 is -1,
    ``--dynamic_image_size`` when H and W of a 4-D input are, ``--dynamic_dims`` otherwise (for
    example batch and sequence both -1).

    ## Facts
    ``notes/atc_cli.md`` rule 12; ``shared/reference/atc_options.json`` ``--input_shape``;
    ``atc_error_codes.json`` EZ3002; the chips' ``dynamic_shape`` fact in ``op_tables``.
    """

    code = "AC520"
    name = "dynamic-shape-on-static-chip"
    severity = Severity.ERROR
    atc_error = "EZ3002"
    stage = "values"
    precedence = 96

    @classmethod
    def check(cls, cmd: "ParsedCommand", ctx: "CommandContext") -> None:
        complete, problems = dynamic_shape_problems(ctx)
        for problem in problems:
            if problem.kind == "dynamic-shape":
                ctx.report_problem(cls, problem, f"give static shapes, or gears ({gear_option_for(complete)})")
