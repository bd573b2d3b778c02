"""missing-required-flag: A flag the mode requires is absent or empty (``--model``, ``--framework``, ``--output``, ``--soc_version``)."""

from __future__ import annotations

from atccheck.findings import Severity
from atccheck.rules.base import CommandRule, register


@register
class MissingRequiredFlag(CommandRule):
    """A flag the mode requires is absent or empty (``--model``, ``--framework``, ``--output``, ``--soc_version``).

    ## What it does
    Reads ``--mode`` (0 when absent) and checks that each flag that mode requires is given with a
    value.

    ## Why
    ATC checks the required flags before anything else: an absent or empty one stops it with
    E10054, ``--framework`` with E10007.

    ## Example
    ``atc --model=m.onnx --framework=5 --output=net`` (no ``--soc_version``).

    ## Fix
    Add the flag: ``--soc_version=Ascend310P3``; ``--framework=5`` for ONNX.

    ## Facts
    ``shared/reference/atc_options.json`` ``dependency_rules``; ``notes/atc_cli.md`` rule 4;
    ``atc_error_codes.json`` E10054, E10007.
    """

    code = "AC512"
    name = "missing-required-flag"
    severity = Severity.ERROR
    atc_error = "E10054"
    stage = "values"
