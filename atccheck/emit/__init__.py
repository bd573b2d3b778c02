"""Report renderers: one module per output format, each with ``render(reports, **options) -> str``."""

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


def renderer(name: str) -> Callable[..., str]:
    module = importlib.import_module(f"{__name__}.{FORMATS[name]}")
    return module.render


def render(name: str, reports: Sequence[Report], **options: Any) -> str:
    return renderer(name)(reports, **options)
