"""stray-word: A word that belongs to no flag, often an unquoted value the shell split at a space."""

from __future__ import annotations

from atccheck.atc.codes import NON_OPTION
from atccheck.findings import Severity
from atccheck.rules.base import CommandRule, register


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
