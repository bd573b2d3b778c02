"""flag-not-in-release: A flag the chosen CANN release does not have yet."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.atc.facts import OPTIONS_TABLE, UNKNOWN_FLAG
from atccheck.atc.lint.rule import CommandRule
from atccheck.findings import Severity
from atccheck.registry import register

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.atc.lint.context import CommandContext
    from atccheck.atc.lint.parse import Occurrence, ParsedCommand


@register
class FlagNotInRelease(CommandRule):
    """A flag the chosen CANN release does not have yet.

    ## What it does
    With ``--cann``, reports flags the release's profile does not have (``--precision_mode_v2``
    before 7.0).

    ## Why
    That release's ATC does not register the flag and stops with ``ERROR: unknown command line
    flag``.

    ## Example
    ``--precision_mode_v2=origin`` with ``--cann 6.0``.

    ## Fix
    Use the release's form (``--precision_mode`` with the matching v1 value), or a newer CANN.

    ## Facts
    ``shared/reference/atc_options.json`` ``--precision_mode_v2``; ``op_tables/profiles.json``
    (``precision_mode_v2`` per release).
    """

    code = "AC527"
    name = "flag-not-in-release"
    severity = Severity.ERROR
    atc_error = UNKNOWN_FLAG
    stage = "values"
    precedence = 40

    @classmethod
    def check_flag(cls, occurrence: "Occurrence", cmd: "ParsedCommand", ctx: "CommandContext") -> bool:
        profile = ctx.profile
        if occurrence.flag != "--precision_mode_v2" or profile is None or profile.precision_mode_v2:
            return False
        ctx.report(cls, occurrence.flag,
                   f"CANN {profile.id} has no {occurrence.flag}; its ATC stops with \"ERROR: unknown command line "
                   f"flag 'precision_mode_v2'\"", hint="use --precision_mode with the matching v1 value",
                   source=OPTIONS_TABLE)
        return True
