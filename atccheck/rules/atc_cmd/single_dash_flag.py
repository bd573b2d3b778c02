"""single-dash-flag: A long flag written with one dash (``-model=``); ATC rewrites it only when two letters follow."""

from __future__ import annotations

from atccheck.findings import Severity
from atccheck.rules.base import CommandRule, register


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
