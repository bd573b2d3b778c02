"""invalid-flag-value: A value outside the flag's closed set of values."""

from __future__ import annotations

from atccheck.findings import Severity
from atccheck.rules.base import CommandRule, register


@register
class InvalidFlagValue(CommandRule):
    """A value outside the flag's closed set of values.

    ## What it does
    For each flag whose values are a closed set in the option table (booleans, switches, enums
    such as ``--log``), reports a value outside the set. Values holding a shell expansion are not
    judged.

    ## Why
    ATC validates these values and stops: E10001 in general, E10005 for booleans (``true``/
    ``false``), E10006 for switches (``0``/``1``), E10010 for ``--log``. Enums are case-sensitive.

    ## Example
    ``--log=verbose``; ``--enable_small_channel=yes``.

    ## Fix
    Use one of the values the finding lists.

    ## Facts
    ``shared/reference/atc_options.json`` ``parameters`` (allowed values and their error codes);
    ``notes/atc_cli.md`` rule 5.
    """

    code = "AC513"
    name = "invalid-flag-value"
    severity = Severity.ERROR
    atc_error = "E10001"
    stage = "values"
