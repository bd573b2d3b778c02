"""input-rank-mismatch: An ``--input_shape`` entry whose rank differs from the model input's rank."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.atc.lint.rule import CommandRule
from atccheck.findings import Severity
from atccheck.registry import register

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.atc.lint.context import CommandContext
    from atccheck.atc.lint.parse import ParsedCommand


@register
class InputRankMismatch(CommandRule):
    """An ``--input_shape`` entry whose rank differs from the model input's rank.

    ## What it does
    With a model, compares the number of dims of each entry with the rank of the named input.

    ## Why
    ATC stops with E10049: the shape given must have the input's rank.

    ## Example
    ``--input_shape="image:1,3,64"`` for a 4-D input ``image``.

    ## Fix
    Give as many dims as the model input has.

    ## Facts
    ``notes/atc_cli.md`` rule 10; ``atc_error_codes.json`` E10049.
    """

    code = "AC516"
    name = "input-rank-mismatch"
    severity = Severity.ERROR
    atc_error = "E10049"
    stage = "values"
    precedence = 92

    @classmethod
    def check(cls, cmd: "ParsedCommand", ctx: "CommandContext") -> None:
        for problem in ctx.input_shape.names:
            if problem.kind == "input-rank":
                ctx.report_problem(cls, problem, "give as many dims as the model input has")
