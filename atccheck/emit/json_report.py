"""JSON: the documented, versioned report (docs/json-report.md).

One report renders as the report object itself; several (a directory, or several chips)
as ``{"schema_version": 1, "reports": [...]}``.
"""

from __future__ import annotations

import json
from typing import Any, Sequence

from atccheck.report import SCHEMA_VERSION, Report


def render(reports: Sequence[Report], **_: Any) -> str:
    if len(reports) == 1:
        doc: Any = reports[0].to_dict()
    else:
        doc = {"schema_version": SCHEMA_VERSION, "reports": [r.to_dict() for r in reports]}
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
