"""wrong-framework: ``--framework`` other than 5 for an ONNX model."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.atc.facts import onnx_framework
from atccheck.atc.lint.rule import CommandRule
from atccheck.findings import Severity
from atccheck.registry import register

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.atc.lint.context import CommandContext
    from atccheck.atc.lint.parse import ParsedCommand


@register
class WrongFramework(CommandRule):
    """``--framework`` other than 5 for an ONNX model.

    ## What it does
    Checks ``--framework`` against the framework values (0, 1, 3, 5) and, for an ``.onnx`` model,
    that it is 5.

    ## Why
    A value that is no framework stops ATC with E10007; another framework's number makes ATC parse
    the ONNX file as that framework's format and fail (E13005).

    ## Example
    ``--framework=3`` with ``--model=m.onnx``.

    ## Fix
    ``--framework=5``.

    ## Facts
    ``notes/atc_cli.md`` rules 4 and 22; ``shared/reference/atc_options.json`` ``--framework``;
    ``atc_error_codes.json`` E10007, E13005.
    """

    code = "AC523"
    name = "wrong-framework"
    severity = Severity.ERROR
    atc_error = "E10007"
    stage = "values"
    precedence = 50

    @classmethod
    def check(cls, cmd: "ParsedCommand", ctx: "CommandContext") -> None:
        framework = cmd.last("--framework")
        if framework is None or framework.value is None or framework.has_expansion:
            return
        info = ctx.flags["--framework"]
        if framework.value not in (info.allowed or ()):
            ctx.report(cls, "--framework", f"'{framework.value}' is not a framework (0, 1, 3, 5)",
                       hint="--framework=5 for ONNX", atc_error="E10007", source=info.source)
        elif framework.value != onnx_framework() and ctx.onnx_model:
            ctx.report(cls, "--framework",
                       f"--framework={framework.value} for an ONNX model: ATC parses the file as another framework's "
                       "format and fails", hint="--framework=5 for ONNX", atc_error="E13005",
                       source="shared/reference/notes/atc_cli.md rule 22")
