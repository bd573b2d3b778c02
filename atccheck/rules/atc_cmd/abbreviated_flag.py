"""abbreviated-flag: A unique prefix of a flag name: getopt_long accepts it, but a new flag can make it ambiguous."""

from __future__ import annotations

from atccheck.findings import Severity
from atccheck.rules.base import CommandRule, register


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
