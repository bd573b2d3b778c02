"""The rule contract and the rule registry.

A rule is a class in its own module under ``atccheck/rules/``, decorated with
:func:`register`. It detects; it never changes the model. Its docstring is its
documentation, under the headings ``What it does``, ``Why``, ``Example``, ``Fix`` and
``Facts`` (``atccheck rule NAME`` prints it).

Three kinds share the one registry (one code and name space, one documentation format):
:class:`Rule` reads a model graph (``atccheck check``), :class:`CommandRule` reads an ``atc``
command line (``atccheck atc-cmd --lint``, modules under ``atccheck/rules/atc_cmd/``), and
:class:`EngineFinding` documents what the check engine reports around the rules (a rule that
crashed, a mistyped attribute). Each runner asks for its own kind only.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from atccheck.context import CheckContext, NodeContext
from atccheck.findings import Finding, FixSuggestion, Location, Severity

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.atc.lint import CommandContext, ParsedCommand
    from atccheck.tables import Tables

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


class _Documented:
    """What every catalogue entry has: identity, default severity, and its docstring as documentation."""

    code: ClassVar[str]
    name: ClassVar[str]
    severity: ClassVar[Severity]
    kind: ClassVar[str]
    # Earlier names that still find the rule (``atccheck rule OLD-NAME``).
    aliases: ClassVar[tuple[str, ...]] = ()

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


class Rule(_Documented):
    """Base class. Subclasses set the class attributes and override check_model and/or check_node."""

    kind: ClassVar[str] = "model"
    # Node dispatch: None = every node; a set = standard-domain nodes of these op types;
    # empty = model-level rule only.
    op_types: ClassVar[frozenset[str] | None] = frozenset()
    # Set instead of op_types: standard-domain nodes of the ops the op_facts.json facts of this
    # kind name (the ops are data, not code).
    fact_kind: ClassVar[str | None] = None

    def node_ops(self, tables: "Tables") -> frozenset[str] | None:
        """The op types this rule's check_node sees (None: every node), for the engine's dispatch."""
        if self.fact_kind is not None:
            return tables.ops_with_fact(self.fact_kind)
        return self.op_types

    def check_model(self, ctx: CheckContext) -> Iterable[Finding]:
        return ()

    def check_node(self, node: NodeContext) -> Iterable[Finding]:
        return ()

    # ---- helpers for subclasses

    def finding(
        self,
        where: NodeContext | CheckContext | Location,
        message: str,
        *,
        hint: str,
        source: str,
        severity: Severity | None = None,
        atc_error: str | None = None,
        data: Mapping[str, Any] | None = None,
        fix_hint: str | None = None,
    ) -> Finding:
        """A finding of this rule at ``where`` (a node, the whole model, or a location).

        The rule never names a fix: the engine attaches the pass that answers the finding
        (``atccheck.fixlinks``). When the hint depends on whether a pass answers it, ``hint`` is
        the text for none, and ``fix_hint`` the text for one, ``{pass_name}`` naming it.
        """
        if isinstance(where, NodeContext):
            location = where.location
        elif isinstance(where, Location):
            location = where
        else:
            location = Location()
        return Finding(
            code=self.code,
            name=self.name,
            severity=severity or self.severity,
            message=message,
            location=location,
            hint=hint,
            fix=FixSuggestion.manual(),
            source=source,
            atc_error=atc_error,
            data=data or {},
            fix_hint=fix_hint,
        )


class CommandRule(_Documented):
    """Base class of the rules that read an ``atc`` command line, not a model.

    The lint (``atccheck.atc.lint``) parses the command as ATC's option parser does, then runs
    the value checks; a rule with its own reading of the values implements :meth:`check`, the
    others are reported by the lint under the rule that names them (through :meth:`finding`). ``atc_error`` is ATC's usual reaction: an error code from the catalogue,
    ATC's own parser line, or None when ATC says nothing (a finding may name a more precise code).
    ``stage`` says when the defect shows: ``shell`` (how the shell splits the text), ``parser``
    (ATC's option parser) or ``values`` (the values against the facts and the model).
    """

    kind: ClassVar[str] = "atc-command"
    atc_error: ClassVar[str | None] = None
    stage: ClassVar[str] = "values"

    @classmethod
    def check(cls, cmd: "ParsedCommand", ctx: "CommandContext") -> None:
        """Report this rule's defects of one parsed command through ``ctx.out``.

        Rules of the ``shell`` and ``parser`` stages, and value checks that share one reading
        of the command with other rules, are reported by the lint itself; their check is empty.
        """

    @classmethod
    def finding(
        cls,
        location: Location,
        message: str,
        *,
        hint: str,
        source: str,
        atc_error: str | None,
        severity: Severity | None = None,
        data: Mapping[str, Any] | None = None,
    ) -> Finding:
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
        )


class EngineFinding(_Documented):
    """A finding the check engine reports itself, around the rules rather than from one.

    It is documented like a rule (``atccheck rule AC000``), can be ignored like one, and is
    never run: the engine makes it (``atccheck.engine``). ``applies`` says where it can appear.
    """

    kind: ClassVar[str] = "engine"
    applies: ClassVar[str]


_R = TypeVar("_R", bound="type[_Documented]")
_RULES: dict[str, type[_Documented]] = {}
_STAGES = ("shell", "parser", "values")


def register(cls: _R) -> _R:
    """Add a rule class to the registry; refuses bad or duplicate codes and names."""
    if not CODE_PATTERN.match(getattr(cls, "code", "")):
        raise ValueError(f"{cls.__name__}: code must look like AC123")
    if not NAME_PATTERN.match(getattr(cls, "name", "")):
        raise ValueError(f"{cls.__name__}: name must be kebab-case")
    if not (issubclass(cls, Rule) or issubclass(cls, CommandRule) or issubclass(cls, EngineFinding)):
        raise ValueError(f"{cls.__name__}: a rule derives from Rule, CommandRule or EngineFinding")
    if issubclass(cls, CommandRule) and cls.stage not in _STAGES:
        raise ValueError(f"{cls.__name__}: stage must be one of {', '.join(_STAGES)}")
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


def registered_rules() -> dict[str, type[_Documented]]:
    """Every registered rule of both kinds, by code."""
    return dict(sorted(_RULES.items()))
