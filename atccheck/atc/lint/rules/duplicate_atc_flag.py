"""duplicate-atc-flag: The same flag twice with different values: ATC keeps the last one without a word."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.atc.lint.rule import CommandRule
from atccheck.findings import Severity
from atccheck.registry import register

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.atc.lint.context import CommandContext
    from atccheck.atc.lint.parse import Occurrence, ParsedCommand


@register
class DuplicateAtcFlag(CommandRule):
    """The same flag twice with different values: ATC keeps the last one without a word.

    ## What it does
    Groups the parsed flags by name and reports each flag given more than once with different
    values, listing the values in order.

    ## Why
    getopt_long reads every occurrence and the last assignment wins; ATC prints nothing, so a
    script edited in two places converts with a value nobody chose on purpose.

    ## Example
    ``--soc_version=Ascend310P3 ... --soc_version=Ascend910B1``

    ## Fix
    Keep one occurrence of the flag.

    ## Facts
    ``hicann/ge@ffdcbc9f7:api/atc/cmd_flag_info.cc`` (each occurrence overwrites the option value).
    """

    code = "AC508"
    name = "duplicate-atc-flag"
    severity = Severity.WARNING
    atc_error = None
    stage = "values"
    precedence = 10

    @classmethod
    def check(cls, cmd: "ParsedCommand", ctx: "CommandContext") -> None:
        seen: dict[str, list[Occurrence]] = {}
        for occurrence in cmd.occurrences:
            seen.setdefault(occurrence.flag, []).append(occurrence)
        for flag, items in seen.items():
            values = [o.value for o in items]
            if len(set(values)) > 1:
                shown = " then ".join(f"'{v}'" for v in values)
                ctx.report(cls, flag,
                           f"{flag} is given {len(items)} times ({shown}); ATC keeps the last value, '{values[-1]}', "
                           "without a word", hint=f"keep one {flag}", data={"values": values})
