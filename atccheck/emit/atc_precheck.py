"""atc-precheck: the ``check_result.json`` that ``atc --mode=3`` writes, for tools that read it.

ATC's keys, types and order exactly (``fail``, ``name``, ``op``, ``pass``, ``result``,
``total``; see ``atccheck/atc/precheck.py`` for how the op list is built), plus atccheck's own
findings under the one extra key ``x_atccheck`` (docs/atc.md). One report only: ATC writes one
file per model and chip, so several targets are refused with a usage error.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from atccheck.report import Report


def render(reports: Sequence[Report], **_: Any) -> str:
    from atccheck.atc.precheck import render_precheck

    return render_precheck(reports)
