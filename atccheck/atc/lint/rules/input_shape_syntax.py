"""input-shape-syntax: An ``--input_shape`` value ATC cannot parse (a non-digit, a float, a zero, ``,`` for ``;``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.atc.lint.rule import CommandRule
from atccheck.findings import Severity
from atccheck.registry import register

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.atc.lint.context import CommandContext
    from atccheck.atc.lint.parse import ParsedCommand


@register
class InputShapeSyntax(CommandRule):
    """An ``--input_shape`` value ATC cannot parse (a non-digit, a float, a zero, ``,`` for ``;``).

    ## What it does
    Parses ``--input_shape`` as ATC does: entries split by ``;``, the name at the last ``:``, dims
    split by ``,``, integers only. Values holding a shell expansion are not judged.

    ## Why
    ATC stops with E10002 for a non-integer dim, E10011 for a zero or negative dimension other
    than -1, E10013 for an overflow.

    ## Example
    ``--input_shape="x:1,3,224.0,224"``; ``--input_shape="x:0,3,224,224"``.

    ## Fix
    Write ``name:d0,d1,...;name2:...`` with positive integers (-1 only on gear axes).

    ## Facts
    ``notes/atc_cli.md`` rule 10; ``hicann/ge@ffdcbc9f7:compiler/api/aclgrph/option_utils.cc``;
    ``atc_error_codes.json`` E10002, E10011, E10013.
    """

    code = "AC518"
    name = "input-shape-syntax"
    severity = Severity.ERROR
    atc_error = "E10002"
    stage = "values"
    precedence = 90

    @classmethod
    def check(cls, cmd: "ParsedCommand", ctx: "CommandContext") -> None:
        reading = ctx.input_shape
        for index, problem in enumerate(reading.syntax):
            message = problem.message
            value = reading.value or ""
            if index == 0 and ";" not in value and value.count(":") > 1:
                message += "; entries look separated by ',' instead of ';'"
            ctx.report_problem(cls, problem, "write \"name:d0,d1,...;name2:...\" with positive integers (-1 for gear axes)", message)
