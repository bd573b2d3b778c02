"""missing-flag-value: A flag without its value, or one whose value is taken from the next flag."""

from __future__ import annotations

from atccheck.atc.codes import MISSING_ARGUMENT
from atccheck.findings import Severity
from atccheck.rules.base import CommandRule, register


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
