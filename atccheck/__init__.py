"""atccheck: check and fix ONNX models for Huawei Ascend ATC conversion, without CANN.

Library use::

    import atccheck
    report = atccheck.check("model.onnx", soc="Ascend310P3", cann="8.0")
    outcome = atccheck.fix("model.onnx", soc="Ascend310P3")

Heavy packages (onnx, onnxruntime, onnxsim) are imported on first use, not on import.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what the lazy loader below returns, visible to type checkers
    from atccheck.api import check, fix
    from atccheck.findings import Finding, Severity
    from atccheck.fixing.outcome import FixOutcome
    from atccheck.report import Report

__version__ = "0.1.0"

__all__ = ["__version__", "check", "fix", "Report", "Finding", "Severity", "FixOutcome"]

_LAZY = {
    "check": ("atccheck.api", "check"),
    "Report": ("atccheck.report", "Report"),
    "Finding": ("atccheck.findings", "Finding"),
    "Severity": ("atccheck.findings", "Severity"),
    "fix": ("atccheck.api", "fix"),
    "FixOutcome": ("atccheck.fixing.pipeline", "FixOutcome"),
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        module, attr = _LAZY[name]
        value = getattr(importlib.import_module(module), attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'atccheck' has no attribute {name!r}")
