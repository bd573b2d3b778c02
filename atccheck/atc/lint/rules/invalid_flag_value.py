"""invalid-flag-value: A value outside the flag's closed set of values."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.atc.lint.rule import CommandRule
from atccheck.findings import Severity
from atccheck.registry import register

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.atc.lint.context import CommandContext
    from atccheck.atc.lint.parse import Occurrence, ParsedCommand


@register
class InvalidFlagValue(CommandRule):
    """A value outside the flag's closed set of values.

    ## What it does
    For each flag whose values are a closed set in the option table (booleans, switches, enums
    such as ``--log``), reports a value outside the set. Values holding a shell expansion are not
    judged.

    ## Why
    ATC validates these values and stops: E10001 in general, E10005 for booleans (``true``/
    ``false``), E10006 for switches (``0``/``1``), E10010 for ``--log``. Enums are case-sensitive.

    ## Example
    ``--log=verbose``; ``--enable_small_channel=yes``.

    ## Fix
    Use one of the values the finding lists.

    ## Facts
    ``shared/reference/atc_options.json`` ``parameters`` (allowed values and their error codes);
    ``notes/atc_cli.md`` rule 5.
    """

    code = "AC513"
    name = "invalid-flag-value"
    severity = Severity.ERROR
    atc_error = "E10001"
    stage = "values"
    precedence = 42

    @classmethod
    def check_flag(cls, occurrence: "Occurrence", cmd: "ParsedCommand", ctx: "CommandContext") -> bool:
        if occurrence.flag in ("--input_format", "--framework"):
            return False  # wrong-framework and nhwc-for-onnx judge them
        info = ctx.flags[occurrence.flag]
        if info.allowed and occurrence.value is not None and not occurrence.has_expansion \
                and occurrence.value not in info.allowed:
            ctx.report(cls, occurrence.flag,
                       f"'{occurrence.value}' is not a value of {occurrence.flag} (values: {', '.join(info.allowed)})",
                       hint=f"use one of: {', '.join(info.allowed)}", atc_error=info.value_error, source=info.source)
            return True
        return False
