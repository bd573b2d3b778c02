"""The catalogue's registry: what every entry has, and the one registry of codes and names.

Three kinds of entry share it (one code and name space, one documentation format): model
rules (``atccheck.rules.base.Rule``), command rules (``atccheck.atc.lint.rule.CommandRule``)
and the findings the check engine makes itself (``atccheck.rules.base.EngineFinding``). Each
is a :class:`Documented` class decorated with :func:`register`, which refuses bad or
duplicate codes and names and a docstring without its sections; ``atccheck.catalogue`` lists
every entry.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from atccheck.findings import Finding, FixSuggestion, Location, Severity

CODE_PATTERN = re.compile(r"^AC\d{3}$")
NAME_PATTERN = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
DOC_HEADINGS = ("What it does", "Why", "Example", "Fix", "Facts")


@dataclass(frozen=True)
class RuleDocs:
    summary: str
    sections: Mapping[str, str]

    def text(self) -> str:
        parts = [self.summary]
        for heading in DOC_HEADINGS:
            if self.sections.get(heading):
                parts.append(f"## {heading}\n{self.sections[heading]}")
        return "\n\n".join(parts)


class Documented:
    """What every catalogue entry has: identity, default severity, and its docstring as documentation."""

    code: ClassVar[str]
    name: ClassVar[str]
    severity: ClassVar[Severity]
    kind: ClassVar[str]  # model, atc-command or engine
    # Earlier names that still find the rule (``atccheck rule OLD-NAME``).
    aliases: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def make_finding(cls, location: Location, message: str, *, hint: str, source: str, atc_error: str | None = None,
                     severity: Severity | None = None, data: Mapping[str, Any] | None = None,
                     fix_hint: str | None = None) -> Finding:
        """A finding of this entry, with its code, name and default severity, naming no fix (the check
        engine attaches the pass that answers a model finding)."""
        return Finding(
            code=cls.code,
            name=cls.name,
            severity=severity or cls.severity,
            message=message,
            location=location,
            hint=hint,
            fix=FixSuggestion.manual(),
            source=source,
            atc_error=atc_error,
            data=data or {},
            fix_hint=fix_hint,
        )

    @classmethod
    def validate(cls) -> None:
        """What ``register`` checks of this kind beyond code, name and docs (nothing by default)."""

    @classmethod
    def docs(cls) -> RuleDocs:
        text = inspect.cleandoc(cls.__doc__ or "")
        summary, _, rest = text.partition("\n\n")
        sections: dict[str, str] = {}
        current = None
        lines: list[str] = []
        for line in rest.splitlines():
            match = re.match(r"^## (.+)$", line)
            if match:
                if current:
                    sections[current] = "\n".join(lines).strip()
                current, lines = match.group(1).strip(), []
            else:
                lines.append(line)
        if current:
            sections[current] = "\n".join(lines).strip()
        return RuleDocs(summary=summary.strip(), sections=sections)


_R = TypeVar("_R", bound="type[Documented]")
_RULES: dict[str, type[Documented]] = {}
KINDS = ("model", "atc-command", "engine")


def register(cls: _R) -> _R:
    """Add a rule class to the registry; refuses bad or duplicate codes and names."""
    if not CODE_PATTERN.match(getattr(cls, "code", "")):
        raise ValueError(f"{cls.__name__}: code must look like AC123")
    if not NAME_PATTERN.match(getattr(cls, "name", "")):
        raise ValueError(f"{cls.__name__}: name must be kebab-case")
    if not issubclass(cls, Documented) or getattr(cls, "kind", None) not in KINDS:
        raise ValueError(f"{cls.__name__}: a rule derives from Rule, CommandRule or EngineFinding")
    cls.validate()
    for other in _RULES.values():
        if other is cls:
            return cls
        names = {cls.name, *cls.aliases}
        if other.code == cls.code or names & {other.name, *other.aliases}:
            raise ValueError(f"{cls.__name__}: duplicate rule {cls.code} {cls.name} (already {other.__name__})")
    docs = cls.docs()
    missing = [h for h in DOC_HEADINGS if not docs.sections.get(h)]
    if not docs.summary or missing:
        raise ValueError(f"{cls.__name__}: docstring needs a summary and sections {', '.join(missing)}")
    _RULES[cls.code] = cls
    return cls


def registered_rules() -> dict[str, type[Documented]]:
    """Every registered rule of every kind, by code."""
    return dict(sorted(_RULES.items()))
