"""single-dash-flag: A long flag written with one dash (``-model=``); ATC rewrites it only when two letters follow."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.atc.facts import UNKNOWN_FLAG
from atccheck.atc.lint import parse
from atccheck.atc.lint.rule import CommandRule
from atccheck.findings import Severity
from atccheck.registry import register

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.atc.lint.context import CommandContext


@register
class SingleDashFlag(CommandRule):
    """A long flag written with one dash (``-model=``); ATC rewrites it only when two letters follow.

    ## What it does
    Finds words with a single dash. When two or more letters follow, ATC rewrites ``-name`` to
    ``--name`` before parsing: the flag works and the finding is info. With fewer letters (``-o``)
    getopt reads short options, of which ATC has only ``-h``: that finding is an error.

    ## Why
    The one-dash form is not the documented one: it works only because of ATC's rewrite, and a
    short form such as ``-o out`` makes ATC stop with ``ERROR: unknown command line flag 'o'``.

    ## Example
    ``-model=m.onnx`` (info: works); ``-o out`` (error).

    ## Fix
    Write the long form with two dashes: ``--model=m.onnx``, ``--output=out``.

    ## Facts
    ``hicann/ge@ffdcbc9f7:api/atc/cmd_flag_info.cc`` (FormatArgv rewrites ``-name`` to ``--name``; getopt's short options: ``-h`` only);
    ``notes/atc_cli.md`` rule 2.
    """

    code = "AC502"
    name = "single-dash-flag"
    severity = Severity.INFO
    atc_error = None
    stage = "parser"
    event = (parse.PromotedFlag, parse.ShortOption)

    @classmethod
    def report(cls, event: parse.PromotedFlag | parse.ShortOption, ctx: "CommandContext") -> None:
        if isinstance(event, parse.PromotedFlag):
            ctx.report(cls, event.canonical or event.name,
                       f"'{event.text.split('=', 1)[0]}' has one dash; ATC rewrites it to '{event.name}' because two "
                       "letters follow, so it works here, but it is not the documented form",
                       hint=f"write {event.canonical or event.name}", atc_error=None)
            return
        ctx.report(cls, event.flag,
                   f"'{event.flag}' is read as short option(s), which ATC does not have: ATC stops "
                   f"with \"ERROR: unknown command line flag '{event.short}'\"",
                   hint="use the long form with two dashes, e.g. --output=...", severity=Severity.ERROR,
                   atc_error=UNKNOWN_FLAG)
