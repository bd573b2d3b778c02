"""The JSON report of ``atccheck fix --format json`` (schema in docs/fix.md)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.fixing.outcome import FixOutcome


def render(outcome: "FixOutcome", **options: Any) -> str:
    return json.dumps(outcome.to_dict(), indent=2, sort_keys=False) + "\n"
