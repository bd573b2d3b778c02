"""wrong-framework: ``--framework`` other than 5 for an ONNX model."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.atc.facts import onnx_framework
from atccheck.findings import Severity
from atccheck.rules.base import CommandRule, register

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.atc.facts import FlagInfo
    from atccheck.atc.lint import CommandContext, ParsedCommand, _Collector


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

    @classmethod
    def check(cls, cmd: "ParsedCommand", ctx: "CommandContext") -> None:
        _check_framework(cmd, ctx.out, ctx.flags, ctx.onnx_model)


def _check_framework(cmd: ParsedCommand, out: _Collector, flags: dict[str, FlagInfo], onnx_model: bool) -> None:
    framework = cmd.last("--framework")
    if framework is not None and framework.value is not None and not framework.has_expansion:
        allowed = flags["--framework"].allowed or ()
        if framework.value not in allowed:
            out.add("wrong-framework", "--framework", f"'{framework.value}' is not a framework (0, 1, 3, 5)",
                    hint="--framework=5 for ONNX", atc_error="E10007", source=flags["--framework"].source)
        elif framework.value != onnx_framework() and onnx_model:
            out.add("wrong-framework", "--framework",
                    f"--framework={framework.value} for an ONNX model: ATC parses the file as another framework's "
                    "format and fails", hint="--framework=5 for ONNX", atc_error="E13005",
                    source="shared/reference/notes/atc_cli.md rule 22")
