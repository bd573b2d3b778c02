"""The catalogue: every documented entry of the three kinds, by code and name.

Model rules (``atccheck/rules/``), command rules (``atccheck/atc/lint/rules/``) and the two
findings the check engine makes itself register in one registry (``atccheck.rules.base``);
this module lists them for ``atccheck rule``, the rule pages, the settings and SARIF.
"""

from __future__ import annotations

from atccheck.atc.lint.rule import CommandRule
from atccheck.atc.lint.rules import command_rule, command_rules
from atccheck.rules import all_rules, engine_findings
from atccheck.rules.base import EngineFinding, Rule

__all__ = ["AnyRule", "catalogue", "command_rule", "command_rules", "find_rule"]

AnyRule = type[Rule] | type[CommandRule] | type[EngineFinding]


def catalogue() -> tuple[AnyRule, ...]:
    """Every documented entry of all three kinds, ordered by code."""
    return tuple(sorted((*all_rules(), *command_rules(), *engine_findings()), key=lambda r: r.code))


def find_rule(name_or_code: str) -> AnyRule | None:
    """A rule of any kind by code, name or earlier name."""
    key = name_or_code.strip()
    for rule in catalogue():
        if key.upper() == rule.code or key.lower() == rule.name or key.lower() in rule.aliases:
            return rule
    return None
