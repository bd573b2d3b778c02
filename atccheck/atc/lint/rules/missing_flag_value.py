"""missing-flag-value: A flag without its value, or one whose value is taken from the next flag."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.atc.facts import MISSING_ARGUMENT
from atccheck.atc.lint import parse
from atccheck.atc.lint.rule import CommandRule
from atccheck.findings import Severity
from atccheck.registry import register

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.atc.lint.context import CommandContext


@register
class MissingFlagValue(CommandRule):
    """A flag without its value, or one whose value is taken from the next flag.

    ## What it does
    Finds a flag that takes a value but is the last word, and a ``--name`` (without ``=``)
    followed by another ``--flag``: getopt_long takes that next word as the value.

    ## Why
    The last-word case stops ATC with ``ERROR: flag ... is missing its argument``. In the other
    case the swallowed flag is never set; when it is required ATC stops with E10054.

    ## Example
    ``--output --soc_version=Ascend310P3``: ``--output`` gets the value
    ``--soc_version=Ascend310P3`` and ``--soc_version`` is unset.

    ## Fix
    Give the flag its value (``--output=net``) or remove it.

    ## Facts
    ``hicann/ge@ffdcbc9f7:api/atc/cmd_flag_info.cc`` (getopt_long ``required_argument``); ``atc_error_codes.json`` E10054.
    """

    code = "AC507"
    name = "missing-flag-value"
    severity = Severity.ERROR
    atc_error = MISSING_ARGUMENT
    stage = "parser"
    event = parse.MissingValue

    @classmethod
    def report(cls, event: parse.MissingValue, ctx: "CommandContext") -> None:
        flag = event.flag
        if event.swallowed is None:
            ctx.report(cls, flag, f"{flag} is the last word and has no value: ATC stops with \"ERROR: flag "
                       f"'{event.text}' is missing its argument\"", hint=f"give it a value: {flag}=...")
            return
        ctx.report(cls, flag, f"{flag} has no value, so getopt_long takes the next word '{event.next_text}' as its "
                   f"value and {event.swallowed} is never set", hint=f"give {flag} its value, or remove it",
                   atc_error="E10054", data={"flag": flag, "swallowed": event.swallowed})
