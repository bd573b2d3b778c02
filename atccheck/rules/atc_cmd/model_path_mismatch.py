"""model-path-mismatch: ``--model`` names another file than the model the command was linted against."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from atccheck.findings import Severity
from atccheck.rules.base import CommandRule, register

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.atc.lint import CommandContext, ParsedCommand, _Collector


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

    @classmethod
    def check(cls, cmd: "ParsedCommand", ctx: "CommandContext") -> None:
        _check_model_path(cmd, ctx.out, ctx.model_path)


def _check_model_path(cmd: ParsedCommand, out: _Collector, model_path: str | None) -> None:
    named = cmd.value("--model")
    if not named or not model_path or cmd.last("--model").has_expansion:  # type: ignore[union-attr]
        return
    if os.path.basename(named) != os.path.basename(model_path):
        out.add("model-path-mismatch", "--model",
                f"--model names '{named}', but the lint used '{model_path}'; input names and ranks were checked "
                "against the latter", hint="lint against the model the command converts", atc_error=None)
