"""unicode-dash-flag: A flag that starts with an en or em dash or a minus sign copied from a document, not ``-``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.atc.facts import NON_OPTION
from atccheck.atc.lint import parse
from atccheck.atc.lint.rule import CommandRule
from atccheck.findings import Severity
from atccheck.registry import register

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.atc.lint.context import CommandContext


@register
class UnicodeDashFlag(CommandRule):
    """A flag that starts with an en or em dash or a minus sign copied from a document, not ``-``.

    ## What it does
    Finds words that start with a unicode dash (U+2010-U+2015, U+2212, U+FE63, U+FF0D). The
    value checks then run on the flag the user meant, so one typo gives one finding.

    ## Why
    To ATC the word is not an option: it stops with ``ERROR: Non-option parameter``, and the flag
    the user meant is unset.

    ## Example
    ``–model=m.onnx`` pasted from a web page or a word processor that turned ``--`` into ``–``.

    ## Fix
    Retype the dashes as plain ASCII ``--``.

    ## Facts
    ``hicann/ge@ffdcbc9f7:api/atc/cmd_flag_info.cc`` (options start with ASCII ``-``; other words are non-option parameters);
    ``notes/atc_cli.md`` rule 2.
    """

    code = "AC503"
    name = "unicode-dash-flag"
    severity = Severity.ERROR
    atc_error = NON_OPTION
    stage = "parser"
    event = parse.UnicodeDash

    @classmethod
    def report(cls, event: parse.UnicodeDash, ctx: "CommandContext") -> None:
        text = event.text
        shown = text.split("=", 1)[0]
        ctx.report(cls, event.fixed,
                   f"'{shown}' starts with '{text[0]}' (U+{ord(text[0]):04X}), not '-': ATC reads the word as a "
                   "stray parameter and the flag as unset", hint=f"type plain ASCII dashes: {event.fixed}")
