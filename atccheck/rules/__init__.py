"""The rule catalogue: one rule per module in this package.

Model rules (:class:`Rule`) are the modules of this package; command rules
(:class:`CommandRule`, the ``atc`` command-line lint) are the modules of ``atc_cmd/``; the
two findings the check engine makes itself (:class:`EngineFinding`: internal-error,
malformed-attribute) are documented here too. All register in one registry; :func:`all_rules`
gives the model rules ``atccheck check`` runs, :func:`command_rules` the ones the lint reports
under, :func:`engine_findings` the engine's, :func:`catalogue` all of them.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache

from atccheck.rules.base import CommandRule, EngineFinding, Rule, register, registered_rules

__all__ = ["CommandRule", "EngineFinding", "Rule", "all_rules", "catalogue", "command_rule", "command_rules",
           "engine_findings", "find_rule", "register", "rule_matches"]

AnyRule = type[Rule] | type[CommandRule] | type[EngineFinding]
_COMMAND_PACKAGE = "atc_cmd"


def _import_package(path: list[str], prefix: str) -> None:
    for info in pkgutil.iter_modules(path):
        if info.name != "base" and not info.name.startswith("_") and not info.ispkg:
            importlib.import_module(f"{prefix}.{info.name}")


@lru_cache(maxsize=1)
def all_rules() -> tuple[type[Rule], ...]:
    """The model rules (what ``atccheck check`` runs), ordered by code; imported on first call."""
    _import_package(__path__, __name__)
    return tuple(r for r in registered_rules().values() if issubclass(r, Rule))


@lru_cache(maxsize=1)
def command_rules() -> tuple[type[CommandRule], ...]:
    """The ``atc`` command-line rules (what ``atccheck atc-cmd --lint`` reports), ordered by code."""
    package = importlib.import_module(f"{__name__}.{_COMMAND_PACKAGE}")
    _import_package(list(package.__path__), package.__name__)
    return tuple(r for r in registered_rules().values() if issubclass(r, CommandRule))


@lru_cache(maxsize=1)
def engine_findings() -> tuple[type[EngineFinding], ...]:
    """The findings the check engine makes itself (internal-error, malformed-attribute), by code."""
    all_rules()  # their modules sit beside the model rules'
    return tuple(r for r in registered_rules().values() if issubclass(r, EngineFinding))


def catalogue() -> tuple[AnyRule, ...]:
    """Every documented entry of all three kinds, ordered by code."""
    return tuple(sorted((*all_rules(), *command_rules(), *engine_findings()), key=lambda r: r.code))


def command_rule(name: str) -> type[CommandRule]:
    """The command rule named ``name``; KeyError for any other name (a model rule included)."""
    return _command_rules_by_name()[name]


@lru_cache(maxsize=1)
def _command_rules_by_name() -> dict[str, type[CommandRule]]:
    return {rule.name: rule for rule in command_rules()}


def find_rule(name_or_code: str) -> AnyRule | None:
    """A rule of either kind by code, name or earlier name."""
    key = name_or_code.strip()
    for rule in catalogue():
        if key.upper() == rule.code or key.lower() == rule.name or key.lower() in rule.aliases:
            return rule
    return None


def rule_matches(pattern: str, code: str, name: str) -> bool:
    """Select/ignore semantics: a code, a name, or a prefix of either ('AC1', 'dynamic-')."""
    pattern = pattern.strip()
    return bool(pattern) and (code.startswith(pattern.upper()) or name.startswith(pattern.lower()))
