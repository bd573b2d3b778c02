"""abbreviated-flag: A unique prefix of a flag name: getopt_long accepts it, but a new flag can make it ambiguous."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.atc.lint import parse
from atccheck.atc.lint.rule import CommandRule
from atccheck.findings import Severity
from atccheck.registry import register

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.atc.lint.context import CommandContext


@register
class AbbreviatedFlag(CommandRule):
    """A unique prefix of a flag name: getopt_long accepts it, but a new flag can make it ambiguous.

    ## What it does
    Reports a flag written as a unique prefix of a longer flag name, which getopt_long accepts.

    ## Why
    The command works today; when a later release adds a flag with the same prefix, the
    abbreviation becomes ambiguous and ATC stops with ``ERROR: unknown command line flag``.

    ## Example
    ``--soc=Ascend310P3`` for ``--soc_version``.

    ## Fix
    Spell the flag out.

    ## Facts
    ``hicann/ge@ffdcbc9f7:api/atc/cmd_flag_info.cc`` (getopt_long prefix matching).
    """

    code = "AC525"
    name = "abbreviated-flag"
    severity = Severity.INFO
    atc_error = None
    stage = "parser"
    event = parse.Abbreviation

    @classmethod
    def report(cls, event: parse.Abbreviation, ctx: "CommandContext") -> None:
        ctx.report(cls, event.canonical, f"'{event.name}' is accepted as an abbreviation of {event.canonical}",
                   hint=f"spell it out: {event.canonical}")
