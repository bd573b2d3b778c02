"""glued-flags: Two flags glued into one word, usually by a missing space after a closing quote."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.atc.lint import parse
from atccheck.atc.lint.rule import CommandRule
from atccheck.findings import Severity
from atccheck.registry import register

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.atc.lint.context import CommandContext


@register
class GluedFlags(CommandRule):
    """Two flags glued into one word, usually by a missing space after a closing quote.

    ## What it does
    Finds a ``--name=value`` whose value contains another known flag
    (``...224"--output=net``). ATC reads the whole rest as the first flag's value; the value
    checks run on the two flags the user meant.

    ## Why
    The second flag never reaches ATC. When it is a required one (``--output``,
    ``--soc_version``) ATC stops with E10054 (a required parameter is empty); otherwise its
    setting is silently lost, and the first flag carries a value ATC will reject.

    ## Example
    ``--input_shape="x:1,3,224,224"--output=net``

    ## Fix
    Put a space before the second flag.

    ## Facts
    ``hicann/ge@ffdcbc9f7:api/atc/cmd_flag_info.cc`` (getopt_long takes everything after ``=`` as the value); ``atc_error_codes.json``
    E10054; ``notes/atc_cli.md`` rule 3.
    """

    code = "AC504"
    name = "glued-flags"
    severity = Severity.ERROR
    atc_error = "E10054"
    stage = "parser"
    event = parse.GluedFlags

    @classmethod
    def report(cls, event: parse.GluedFlags, ctx: "CommandContext") -> None:
        flag, other = event.flag, event.other
        ctx.report(cls, flag,
                   f"{flag} and {other} are one word ('...{event.head[-12:]}{event.rest[:len(other) + 1]}...'): "
                   f"ATC reads '{event.value}' as the value of {flag} and never sees {other}",
                   hint="put a space before the second flag (after the closing quote)",
                   atc_error="E10054", data={"flag": flag, "glued": other})
