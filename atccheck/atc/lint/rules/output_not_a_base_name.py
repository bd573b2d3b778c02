"""output-not-a-base-name: ``--output`` ending in ``/`` (a folder) or in ``.om`` (ATC appends ``.om`` itself)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.atc.lint.rule import CommandRule
from atccheck.findings import Severity
from atccheck.registry import register

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.atc.lint.context import CommandContext
    from atccheck.atc.lint.parse import ParsedCommand


@register
class OutputNotABaseName(CommandRule):
    """``--output`` ending in ``/`` (a folder) or in ``.om`` (ATC appends ``.om`` itself).

    ## What it does
    Checks that ``--output`` is a file base name: ending in ``/`` is an error, ending in ``.om``
    a warning.

    ## Why
    ATC needs a base name: a trailing ``/`` stops it with E10022; with ``.om`` it writes
    ``net.om.om``.

    ## Example
    ``--output=out/``; ``--output=net.om``.

    ## Fix
    ``--output=out/net``; ``--output=net``.

    ## Facts
    ``notes/atc_cli.md`` rule 1; ``hicann/ge@ffdcbc9f7:api/atc/main_impl.cc``;
    ``shared/reference/atc_options.json`` ``--output``.
    """

    code = "AC524"
    name = "output-not-a-base-name"
    severity = Severity.ERROR
    atc_error = "E10022"
    stage = "values"
    precedence = 70

    @classmethod
    def check(cls, cmd: "ParsedCommand", ctx: "CommandContext") -> None:
        output = cmd.value("--output")
        if not output:
            return
        if output.endswith("/"):
            ctx.report(cls, "--output",
                       f"'{output}' ends with '/': ATC needs a file base name in that folder", hint=f"{output}model",
                       atc_error="E10022", source="hicann/ge@ffdcbc9f7:api/atc/main_impl.cc")
        elif output.endswith(".om"):
            ctx.report(cls, "--output",
                       f"'{output}' ends with .om: ATC appends .om itself and writes '{output}.om'",
                       hint=f"--output={output[:-3]}", atc_error=None, severity=Severity.WARNING,
                       source="shared/reference/atc_options.json --output")
