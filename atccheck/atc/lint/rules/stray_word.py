"""stray-word: A word that belongs to no flag, often an unquoted value the shell split at a space."""

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
class StrayWord(CommandRule):
    """A word that belongs to no flag, often an unquoted value the shell split at a space.

    ## What it does
    After parsing, lists every word that is neither a flag nor a flag's value. Shell redirections
    (``> atc.log 2>&1``) are not words ATC receives and are not reported. The hint names the flag
    written just before the word, whose value it most likely belongs to.

    ## Why
    ATC rejects non-option parameters: ``ERROR: Non-option parameter: WORD``, and nothing is
    converted.

    ## Example
    ``--input_shape=x:1, 3,224,224`` (unquoted, with a space after the first comma).

    ## Fix
    Quote the whole value the word belongs to, or remove the word.

    ## Facts
    ``hicann/ge@ffdcbc9f7:api/atc/cmd_flag_info.cc``; ``notes/atc_cli.md`` rules 2 and 3.
    """

    code = "AC506"
    name = "stray-word"
    severity = Severity.ERROR
    atc_error = NON_OPTION
    stage = "parser"
    event = parse.StrayWord

    @classmethod
    def report(cls, event: parse.StrayWord, ctx: "CommandContext") -> None:
        previous = event.previous
        hint = "quote the value it belongs to, or remove it"
        if previous is not None and previous.value is not None and not previous.value.endswith(('"', "'")):
            hint = f"if it is part of the value of {previous.flag}, quote the whole value"
        ctx.report(cls, None,
                   f"'{event.text}' belongs to no flag: ATC stops with \"ERROR: Non-option parameter: {event.text}\"",
                   hint=hint, data={"word": event.text})
