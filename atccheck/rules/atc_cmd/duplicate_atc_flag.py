"""duplicate-atc-flag: The same flag twice with different values: ATC keeps the last one without a word."""

from __future__ import annotations

from atccheck.findings import Severity
from atccheck.rules.base import CommandRule, register


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
