"""model-path-mismatch: ``--model`` names another file than the model the command was linted against."""

from __future__ import annotations

from atccheck.findings import Severity
from atccheck.rules.base import CommandRule, register


@register
class ModelPathMismatch(CommandRule):
    """``--model`` names another file than the model the command was linted against.

    ## What it does
    Compares the file name in ``--model`` with the model given to ``atccheck atc-cmd``.

    ## Why
    Input names and ranks were checked against the model given to atccheck; if the command
    converts another file, those checks say nothing about it.

    ## Example
    ``atccheck atc-cmd a.onnx --lint "atc --model=b.onnx ..."``

    ## Fix
    Lint against the model the command converts.

    ## Facts
    The lint itself (no ATC behaviour is involved); ``notes/atc_cli.md`` rule 10 for what the
    name checks rest on.
    """

    code = "AC526"
    name = "model-path-mismatch"
    severity = Severity.INFO
    atc_error = None
    stage = "values"
