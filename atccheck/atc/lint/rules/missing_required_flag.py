"""missing-required-flag: A flag the mode requires is absent or empty (``--model``, ``--framework``, ``--output``, ``--soc_version``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.atc.facts import BUILD_MODE, onnx_framework, required_flags
from atccheck.atc.lint.rule import CommandRule
from atccheck.findings import Severity
from atccheck.registry import register

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.atc.lint.context import CommandContext
    from atccheck.atc.lint.parse import ParsedCommand


@register
class MissingRequiredFlag(CommandRule):
    """A flag the mode requires is absent or empty (``--model``, ``--framework``, ``--output``, ``--soc_version``).

    ## What it does
    Reads ``--mode`` (0 when absent) and checks that each flag that mode requires is given with a
    value: for a build (0, 30) ``--framework``, ``--model``, ``--output`` and ``--soc_version``;
    for a pre-check (3) all but ``--output``; for an OM2 build (7) all but ``--framework``; for
    a dump (1, 5) ``--om`` and ``--json`` (``op_tables/atc_options.json`` ``required_flags``).

    ## Why
    ATC checks the required flags before anything else: an absent or empty one stops it with
    E10054, ``--framework`` with E10007, ``--om``/``--json`` in a dump mode with E10004.

    ## Example
    ``atc --model=m.onnx --framework=5 --output=net`` (no ``--soc_version``).

    ## Fix
    Add the flag: ``--soc_version=Ascend310P3``; ``--framework=5`` for ONNX.

    ## Facts
    ``shared/reference/atc_options.json`` ``dependency_rules``; ``notes/atc_cli.md`` rule 4;
    ``atc_error_codes.json`` E10054, E10007.
    """

    code = "AC512"
    name = "missing-required-flag"
    severity = Severity.ERROR
    atc_error = "E10054"
    stage = "values"
    precedence = 30

    @classmethod
    def check(cls, cmd: "ParsedCommand", ctx: "CommandContext") -> None:
        mode = cmd.value("--mode") or BUILD_MODE
        for flag, code in required_flags(mode):
            occurrence = cmd.last(flag)
            if occurrence is None:
                ctx.report(cls, flag, f"{flag} is required for --mode={mode} and is not given",
                           hint=f"add {flag}=..." + (f" ({onnx_framework()} for ONNX)" if flag == "--framework" else ""),
                           atc_error=code, source="shared/reference/atc_options.json dependency_rules")
            elif occurrence.value == "" and not occurrence.intended:
                ctx.report(cls, flag, f"{flag} is given with an empty value",
                           hint=f"give {flag} its value", atc_error="E10054",
                           source="shared/reference/atc_options.json dependency_rules")
