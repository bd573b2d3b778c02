"""model-path-mismatch: ``--model`` names another file than the model the command was linted against."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from atccheck.atc.lint.rule import CommandRule
from atccheck.findings import Severity
from atccheck.registry import register

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.atc.lint.context import CommandContext
    from atccheck.atc.lint.parse import ParsedCommand


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
    precedence = 110

    @classmethod
    def check(cls, cmd: "ParsedCommand", ctx: "CommandContext") -> None:
        named = cmd.value("--model")
        model = cmd.last("--model")
        if not named or not ctx.model_path or model is None or model.has_expansion:
            return
        if os.path.basename(named) != os.path.basename(ctx.model_path):
            ctx.report(cls, "--model",
                       f"--model names '{named}', but the lint used '{ctx.model_path}'; input names and ranks were "
                       "checked against the latter", hint="lint against the model the command converts",
                       atc_error=None)
