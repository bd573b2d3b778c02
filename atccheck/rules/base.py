"""The model-rule contract (the registry it shares with the command rules is ``atccheck.registry``).

A rule is a class in its own module under ``atccheck/rules/``, decorated with
:func:`register`. It detects; it never changes the model. Its docstring is its
documentation, under the headings ``What it does``, ``Why``, ``Example``, ``Fix`` and
``Facts`` (``atccheck rule NAME`` prints it).

Three kinds share the one registry, the catalogue (one code and name space, one documentation
format): :class:`Rule` reads a model graph (``atccheck check``), ``CommandRule`` reads an
``atc`` command line (``atccheck atc-cmd --lint``; its base and its modules are the command
lint's own, under ``atccheck/atc/lint/``), and :class:`EngineFinding` documents what the check
engine reports around the rules (a rule that crashed, a mistyped attribute). Each runner asks
for its own kind only; ``atccheck.catalogue`` lists all three.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from atccheck.context import CheckContext, NodeContext
from atccheck.findings import Finding, Location, Severity
from atccheck.registry import DOC_HEADINGS, Documented, RuleDocs, register, registered_rules

__all__ = ["DOC_HEADINGS", "EngineFinding", "Rule", "RuleDocs", "register", "registered_rules"]

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.tables import Tables

class Rule(Documented):
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
        return self.make_finding(location, message, hint=hint, source=source, atc_error=atc_error, severity=severity,
                                 data=data, fix_hint=fix_hint)


class EngineFinding(Documented):
    """A finding the check engine reports itself, around the rules rather than from one.

    It is documented like a rule (``atccheck rule AC000``), can be ignored like one, and is
    never run: the engine makes it (``atccheck.engine``). ``applies`` says where it can appear.
    """

    kind: ClassVar[str] = "engine"
    applies: ClassVar[str]
