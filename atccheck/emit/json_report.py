"""JSON: the documented, versioned report (docs/json-report.md).

One report renders as the report object itself; several (a directory, or several chips), or
any model that could not be checked, or ``collection=True`` (the CLI sets it whenever the
command line names a folder, several models or several chips, so the shape of the document
does not depend on how many models a folder happens to hold) render as::

    {"schema_version": 1, "reports": [...], "unchecked": [{"model": ..., "problem": ...}]}
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from atccheck.report import SCHEMA_VERSION, Report

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.batch import UncheckedModel


def render(
    reports: Sequence[Report],
    *,
    unchecked: Sequence["UncheckedModel"] = (),
    collection: bool = False,
    **_: Any,
) -> str:
    if len(reports) == 1 and not unchecked and not collection:
        doc: Any = reports[0].to_dict()
    else:
        doc = {
            "schema_version": SCHEMA_VERSION,
            "reports": [r.to_dict() for r in reports],
            "unchecked": [u.to_dict() for u in unchecked],
        }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
