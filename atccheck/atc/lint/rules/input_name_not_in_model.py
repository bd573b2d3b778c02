"""input-name-not-in-model: An ``--input_shape`` name that is not a real input of the model."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.atc.lint.rule import CommandRule
from atccheck.findings import Severity
from atccheck.registry import register

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.atc.lint.context import CommandContext
    from atccheck.atc.lint.parse import ParsedCommand


@register
class InputNameNotInModel(CommandRule):
    """An ``--input_shape`` name that is not a real input of the model.

    ## What it does
    With a model, compares each ``--input_shape`` name with the graph inputs minus the ones an
    initializer backs. Names are checked even when the dims hold a shell expansion (``${bs}``).

    ## Why
    ATC stops with E10016 for a name that is not in the graph and E10017 for a node that is not
    an input (an initializer). Names are case-sensitive; ``,`` instead of ``;`` between entries
    turns two entries into one bad name.

    ## Example
    ``--input_shape="Image:1,3,224,224"`` for an input named ``image``.

    ## Fix
    Use the exact graph input names; separate entries with ``;``.

    ## Facts
    ``notes/atc_cli.md`` rule 10; ``atc_error_codes.json`` E10016, E10017;
    ``hicann/ge@ffdcbc9f7:compiler/api/aclgrph/option_utils.cc``.
    """

    code = "AC515"
    name = "input-name-not-in-model"
    severity = Severity.ERROR
    atc_error = "E10016"
    stage = "values"
    precedence = 91

    @classmethod
    def check(cls, cmd: "ParsedCommand", ctx: "CommandContext") -> None:
        for problem in ctx.input_shape.names:
            if problem.kind == "input-name":
                ctx.report_problem(cls, problem, "use the exact graph input names (initializers excluded)")
