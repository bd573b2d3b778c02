"""output-not-a-base-name: ``--output`` ending in ``/`` (a folder) or in ``.om`` (ATC appends ``.om`` itself)."""

from __future__ import annotations

from atccheck.findings import Severity
from atccheck.rules.base import CommandRule, register


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
