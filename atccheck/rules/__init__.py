"""The model rules: one rule per module in this package.

Model rules (:class:`Rule`) are the modules of this package; the two findings the check
engine makes itself (:class:`EngineFinding`: internal-error, malformed-attribute) are
documented here too. :func:`all_rules` gives the model rules ``atccheck check`` runs and
:func:`engine_findings` the engine's. The command rules (the ``atc`` command lint) are the
lint's own (``atccheck/atc/lint/rules/``); ``atccheck.catalogue`` lists every kind.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache

from atccheck.rules.base import EngineFinding, Rule, register, registered_rules

__all__ = ["EngineFinding", "Rule", "all_rules", "engine_findings", "register", "rule_matches"]


@lru_cache(maxsize=1)
def all_rules() -> tuple[type[Rule], ...]:
    """The model rules (what ``atccheck check`` runs), ordered by code; imported on first call."""
    for info in pkgutil.iter_modules(__path__):
        if info.name != "base" and not info.name.startswith("_") and not info.ispkg:
            importlib.import_module(f"{__name__}.{info.name}")
    return tuple(r for r in registered_rules().values() if issubclass(r, Rule))


@lru_cache(maxsize=1)
def engine_findings() -> tuple[type[EngineFinding], ...]:
    """The findings the check engine makes itself (internal-error, malformed-attribute), by code."""
    all_rules()  # their modules sit beside the model rules'
    return tuple(r for r in registered_rules().values() if issubclass(r, EngineFinding))


def rule_matches(pattern: str, code: str, name: str) -> bool:
    """Select/ignore semantics: a code, a name, or a prefix of either ('AC1', 'dynamic-')."""
    pattern = pattern.strip()
    return bool(pattern) and (code.startswith(pattern.upper()) or name.startswith(pattern.lower()))
