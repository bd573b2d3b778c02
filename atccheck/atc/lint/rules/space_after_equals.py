"""space-after-equals: ``--name= value``: the flag gets an empty value and the value becomes a stray word."""

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
class SpaceAfterEquals(CommandRule):
    """``--name= value``: the flag gets an empty value and the value becomes a stray word.

    ## What it does
    Finds a ``--name=`` with nothing after ``=`` followed by a word that is not a flag. The value
    checks run on the value the user meant.

    ## Why
    The shell splits at the space: ATC sees ``--name=`` (empty) and then a word that belongs to no
    flag, and stops with ``ERROR: Non-option parameter: VALUE``.

    ## Example
    ``--model= m.onnx``

    ## Fix
    Remove the space: ``--model=m.onnx``.

    ## Facts
    ``hicann/ge@ffdcbc9f7:api/atc/cmd_flag_info.cc`` (non-option parameters are rejected after parsing); ``notes/atc_cli.md`` rule 2.
    """

    code = "AC505"
    name = "space-after-equals"
    severity = Severity.ERROR
    atc_error = NON_OPTION
    stage = "parser"
    event = parse.SpaceAfterEquals

    @classmethod
    def report(cls, event: parse.SpaceAfterEquals, ctx: "CommandContext") -> None:
        flag, nxt = event.flag, event.next_text
        ctx.report(cls, flag,
                   f"'{event.text} {nxt}': the space after '=' gives {flag} an empty value and "
                   f"'{nxt}' becomes a stray word (\"ERROR: Non-option parameter: {nxt}\")",
                   hint=f"remove the space: {flag}={nxt}", data={"flag": flag})
