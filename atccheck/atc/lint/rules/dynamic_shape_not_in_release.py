"""dynamic-shape-not-in-release: -1 without a gear option, or a range, in ``--input_shape`` for a CANN release that does not accept it."""

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
class DynamicShapeNotInRelease(CommandRule):
    """-1 without a gear option, or a range, in ``--input_shape`` for a CANN release that does not accept it.

    ## What it does
    With ``--cann``, reports the first input whose shape keeps -1 without a gear option, or uses
    a ``lo~hi`` range, when the release does not take ranges in ``--input_shape`` (CANN 5.0, 6.0).
    The hint names the gear option that fits the -1 axes. The chip may compile dynamic shapes:
    the limit is the release's (``dynamic-shape-on-static-chip`` is the chip's).

    ## Why
    In CANN up to 6.x a lone -1 needed a gear option (E10011) and ranges were not accepted in
    ``--input_shape`` (E10002).

    ## Example
    ``--input_shape="tokens:-1,-1"`` with ``--cann 6.0``.

    ## Fix
    Give static shapes, or gears: ``--dynamic_batch_size`` when only axis 0 is -1,
    ``--dynamic_image_size`` when H and W of a 4-D input are, ``--dynamic_dims`` otherwise (here:
    batch and sequence both -1).

    ## Facts
    ``notes/atc_cli.md`` rule 12 (CANN <= 6.x); ``op_tables/profiles.json``
    (``input_shape_ranges`` per release); ``atc_error_codes.json`` E10011, E10002.
    """

    code = "AC528"
    name = "dynamic-shape-not-in-release"
    severity = Severity.ERROR
    atc_error = "E10011"
    stage = "values"
    precedence = 95

    @classmethod
    def check(cls, cmd: "ParsedCommand", ctx: "CommandContext") -> None:
        complete, problems = dynamic_shape_problems(ctx)
        for problem in problems:
            if problem.kind == "dynamic-shape-release":
                ctx.report_problem(cls, problem, f"give static shapes, or gears ({gear_option_for(complete)})")
