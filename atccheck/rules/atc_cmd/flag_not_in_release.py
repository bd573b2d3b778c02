"""flag-not-in-release: A flag the chosen CANN release does not have yet."""

from __future__ import annotations

from atccheck.atc.codes import UNKNOWN_FLAG
from atccheck.findings import Severity
from atccheck.rules.base import CommandRule, register


@register
class FlagNotInRelease(CommandRule):
    """A flag the chosen CANN release does not have yet.

    ## What it does
    With ``--cann``, reports flags the release's profile does not have (``--precision_mode_v2``
    before 7.0).

    ## Why
    That release's ATC does not register the flag and stops with ``ERROR: unknown command line
    flag``.

    ## Example
    ``--precision_mode_v2=origin`` with ``--cann 6.0``.

    ## Fix
    Use the release's form (``--precision_mode`` with the matching v1 value), or a newer CANN.

    ## Facts
    ``shared/reference/atc_options.json`` ``--precision_mode_v2``; ``op_tables/profiles.json``
    (``precision_mode_v2`` per release).
    """

    code = "AC527"
    name = "flag-not-in-release"
    severity = Severity.ERROR
    atc_error = UNKNOWN_FLAG
    stage = "values"
