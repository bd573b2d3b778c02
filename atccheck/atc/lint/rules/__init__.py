"""The command rules: defects of an ``atc`` command line (AC5xx), one rule per module.

They read a command as ATC's option parser does (``atccheck.atc.lint``), not a model graph, so
``atccheck check`` never runs them and ``atccheck atc-cmd --lint`` runs only them. They share
the catalogue with the model rules: ``atccheck rule AC519``, ``rule --all`` and ``docs/rules/``.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache

from atccheck.atc.lint.rule import CommandRule
from atccheck.registry import registered_rules


@lru_cache(maxsize=1)
def command_rules() -> tuple[type[CommandRule], ...]:
    """The command rules, ordered by code; their modules are imported on first call."""
    for info in pkgutil.iter_modules(__path__):
        if not info.name.startswith("_") and not info.ispkg:
            importlib.import_module(f"{__name__}.{info.name}")
    return tuple(r for r in registered_rules().values() if issubclass(r, CommandRule))


def command_rule(name: str) -> type[CommandRule]:
    """The command rule named ``name``; KeyError for any other name (a model rule included)."""
    return _by_name()[name]


@lru_cache(maxsize=1)
def _by_name() -> dict[str, type[CommandRule]]:
    return {rule.name: rule for rule in command_rules()}
