"""Report renderers: one module per output format.

``FORMATS`` are the formats of ``atccheck check``, each module with ``render(reports, **options)
-> str``; ``FIX_FORMATS`` those of ``atccheck fix``, each with ``render(outcome, **options) -> str``.
A new format is a module here and one entry in its table; the CLI's choices read the tables.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.report import Report  # (its import pulls in the tables; `atccheck --help` needs only FORMATS)

# format name -> module in this package. Each module defines render(reports, **options) -> str.
FORMATS: dict[str, str] = {
    "text": "text",
    "json": "json_report",
    "atc-precheck": "atc_precheck",
    "sarif": "sarif",
    "junit": "junit",
    "github": "github",
    "markdown": "markdown",
    "html": "html",
}


# format name -> module in this package. Each module defines render(outcome, **options) -> str.
FIX_FORMATS: dict[str, str] = {
    "text": "fix_text",
    "json": "fix_json",
}


def fix_renderer(name: str) -> Callable[..., str]:
    module = importlib.import_module(f"{__name__}.{FIX_FORMATS[name]}")
    return module.render


def renderer(name: str) -> Callable[..., str]:
    module = importlib.import_module(f"{__name__}.{FORMATS[name]}")
    return module.render


def render(name: str, reports: Sequence[Report], **options: Any) -> str:
    return renderer(name)(reports, **options)
