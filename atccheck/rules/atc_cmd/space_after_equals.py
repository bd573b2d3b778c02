"""space-after-equals: ``--name= value``: the flag gets an empty value and the value becomes a stray word."""

from __future__ import annotations

from atccheck.atc.codes import NON_OPTION
from atccheck.findings import Severity
from atccheck.rules.base import CommandRule, register


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
