"""The ``atc`` command line: generate it, lint a user's own, and write ATC's pre-check report.

- :func:`build_command` / :func:`command_for_report` (``command.py``): the exact command for a
  model and a chip, refusing with ATC's error code what ATC would reject.
- :func:`lint_command` (``lint/``): parse a command as ATC's option parser does and report
  each defect with the ATC error it would cause (codes AC5xx, one rule per module in ``lint/rules/``).
- :func:`precheck_document` (``precheck.py``): the ``check_result.json`` that ``atc --mode=3``
  writes, built from a check report.

Imports are lazy so ``import atccheck.atc`` stays cheap.
"""

from __future__ import annotations

from typing import Any

__all__ = ["AtcCommand", "AtcRuleError", "build_command", "command_for_report", "lint_command", "LintResult",
           "precheck_document", "render_precheck"]

_LAZY = {
    "AtcCommand": "atccheck.atc.command",
    "AtcRuleError": "atccheck.atc.command",
    "build_command": "atccheck.atc.command",
    "command_for_report": "atccheck.atc.command",
    "lint_command": "atccheck.atc.lint.run",
    "LintResult": "atccheck.atc.lint.run",
    "precheck_document": "atccheck.atc.precheck",
    "render_precheck": "atccheck.atc.precheck",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'atccheck.atc' has no attribute {name!r}")
