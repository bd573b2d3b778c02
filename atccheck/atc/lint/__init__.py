"""Lint an ``atc`` command a user already has, the way the shell and ATC's option parser read it.

One package, in the order a command is read:

- ``parse``: the shell's words and cuts, then ATC's option parser (getopt_long as in hicann/ge
  ``api/atc/cmd_flag_info.cc``): the flags it takes, and the events it meets on the way;
- ``context``: what a rule reads besides the parsed command (tables, flags, profile, model, the
  chip and the ``--input_shape`` reading several rules share) and :meth:`~context.CommandContext.report`;
- ``files``: the files and names a command gives (AIPP config, precision files), found from the
  context's ``files`` with :func:`atccheck.atc.command_files.resolve_command_path` and read once
  per command for the rules that judge them;
- ``rule``: the :class:`~rule.CommandRule` contract; ``rules/``: the rules, one per module (AC5xx);
- ``run``: :func:`lint_command`, the run loop in stage order (shell, parser, values).

It shares only the catalogue's registry (``atccheck.registry``) with the model rules. Imports are
lazy so ``import atccheck.atc.lint`` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.atc.lint.context import COMMAND_GRAPH, CommandContext
    from atccheck.atc.lint.parse import Occurrence, ParsedCommand
    from atccheck.atc.lint.rule import CommandRule
    from atccheck.atc.lint.rules import command_rule, command_rules
    from atccheck.atc.lint.run import LintResult, lint_command

__all__ = ["COMMAND_GRAPH", "CommandContext", "CommandRule", "LintResult", "Occurrence", "ParsedCommand",
           "command_rule", "command_rules", "lint_command"]

_LAZY = {
    "COMMAND_GRAPH": "atccheck.atc.lint.context",
    "CommandContext": "atccheck.atc.lint.context",
    "Occurrence": "atccheck.atc.lint.parse",
    "ParsedCommand": "atccheck.atc.lint.parse",
    "CommandRule": "atccheck.atc.lint.rule",
    "command_rule": "atccheck.atc.lint.rules",
    "command_rules": "atccheck.atc.lint.rules",
    "LintResult": "atccheck.atc.lint.run",
    "lint_command": "atccheck.atc.lint.run",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'atccheck.atc.lint' has no attribute {name!r}")
