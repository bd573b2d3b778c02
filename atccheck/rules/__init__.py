"""The rule catalogue: one rule per module in this package."""

from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache

from atccheck.rules.base import Rule, register, registered_rules

__all__ = ["Rule", "all_rules", "find_rule", "register", "rule_matches"]


@lru_cache(maxsize=1)
def all_rules() -> tuple[type[Rule], ...]:
    """Every rule class, ordered by code (modules are imported on first call)."""
    for info in pkgutil.iter_modules(__path__):
        if info.name != "base" and not info.name.startswith("_"):
            importlib.import_module(f"{__name__}.{info.name}")
    return tuple(registered_rules().values())


def find_rule(name_or_code: str) -> type[Rule] | None:
    key = name_or_code.strip()
    for rule in all_rules():
        if key.upper() == rule.code or key.lower() == rule.name:
            return rule
    return None


def rule_matches(pattern: str, code: str, name: str) -> bool:
    """Select/ignore semantics: a code, a name, or a prefix of either ('AC1', 'dynamic-')."""
    pattern = pattern.strip()
    return bool(pattern) and (code.startswith(pattern.upper()) or name.startswith(pattern.lower()))
