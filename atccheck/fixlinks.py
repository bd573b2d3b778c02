"""Which ``atccheck fix`` pass answers which finding: the link, declared once, on the pass.

A pass lists the findings it answers in its ``answers`` (a tuple of :class:`FixLink`). That is
the only place the link is written:

- ``tools/regen.py`` copies every pass's links and safety into ``atccheck/fix_index.py``, plain
  data with a freshness test, so that ``check`` learns the links without importing a pass;
- the check engine gives every finding the pass that answers it (:func:`fix_for`): rules
  report what is wrong and never name a fix;
- the fix pipeline runs a pass when a finding it answers is present (:meth:`FixLink.matches`).

A link with ``named=False`` makes the pass run for such findings without being the fix the
finding names (a decomposition that also removes an opset-not-registered finding which
convert-opset is named for; float64-to-float32 for dtype findings that name no pass).

When several named links match one finding, the most specific wins: a link with a domain
first, then one with an op type, then a rule-wide one; links of one rank in index order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from types import MappingProxyType
from typing import Any

from atccheck.domains import CONTRIB_DOMAIN
from atccheck.findings import Finding, FixSuggestion

# The rules that report a node itself as not converted (no parser plugin for its key): a pass
# that replaces such a node by standard ops answers each of them.
UNCONVERTED = ("custom-domain-op", "opset-not-registered", "unsupported-op")


@dataclass(frozen=True)
class FixLink:
    """The findings a pass answers: a rule's findings, narrowed by op type, domain and data.

    ``rule``: the rule name (None: any rule). ``op_type``: the node's op type (None: any node,
    and the model-level findings). ``domain``: the node's domain (None: any domain).
    ``when``: ``finding.data[key]`` must be one of the given values, for every key.
    ``has``: ``finding.data`` must hold every key. ``named``: the finding names this pass as
    its fix (False: the pass runs for it, but the finding names another pass, or none).
    """

    rule: str | None
    op_type: str | None = None
    domain: str | None = None
    when: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    has: tuple[str, ...] = ()
    named: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "when", MappingProxyType({k: tuple(v) for k, v in self.when.items()}))
        object.__setattr__(self, "has", tuple(self.has))

    def matches(self, finding: Finding) -> bool:
        if self.rule is not None and finding.name != self.rule:
            return False
        if self.op_type is not None and finding.location.op_type != self.op_type:
            return False
        if self.domain is not None and finding.location.domain != self.domain:
            return False
        data = finding.data
        if any(key not in data for key in self.has):
            return False
        return all(key in data and _member(data[key], values) for key, values in self.when.items())

    @property
    def rank(self) -> int:
        """0 for a link with a domain, 1 with an op type, 2 rule-wide: the most specific wins."""
        return 0 if self.domain is not None else 1 if self.op_type is not None else 2

    def as_data(self) -> tuple[Any, ...]:
        """The link as plain data, for the generated index."""
        return (self.rule, self.op_type, self.domain, tuple((k, v) for k, v in sorted(self.when.items())), self.has)

    @classmethod
    def from_data(cls, data: Sequence[Any]) -> FixLink:
        rule, op_type, domain, when, has = data
        return cls(rule, op_type, domain, dict(when), tuple(has))

    @classmethod
    def replaces(cls, op_type: str, domain: str = CONTRIB_DOMAIN) -> tuple[FixLink, ...]:
        """The named links of a pass that replaces every node of ``op_type`` in ``domain`` by standard
        ops: it answers each rule that reports such a node as not converted (:data:`UNCONVERTED`)."""
        return tuple(cls(rule, op_type, domain) for rule in UNCONVERTED)


def _member(value: Any, values: tuple[Any, ...]) -> bool:
    try:
        return value in values
    except TypeError:  # an unhashable value compared with a tuple of hashables
        return False


@dataclass(frozen=True)
class IndexedLink:
    """One named link of the generated index: the pass, its safety and the link."""

    pass_name: str
    safe: bool
    link: FixLink


@cache
def named_links() -> tuple[IndexedLink, ...]:
    """Every named link of every pass, most specific first (from ``atccheck/fix_index.py``)."""
    from atccheck.fix_index import NAMED

    return tuple(IndexedLink(name, safe, FixLink.from_data(link)) for name, safe, link in NAMED)


@cache
def _candidates(rule: str) -> tuple[IndexedLink, ...]:
    """The named links a finding of this rule may match, most specific first."""
    return tuple(item for item in named_links() if item.link.rule in (rule, None))


def fix_for(finding: Finding) -> FixSuggestion:
    """The pass that answers this finding (the most specific named link that matches), or manual."""
    for item in _candidates(finding.name):
        if item.link.matches(finding):
            return FixSuggestion(item.pass_name, item.safe)
    return FixSuggestion.manual()


def with_fix(finding: Finding) -> Finding:
    """The finding with the fix that answers it, and the hint that goes with that fix."""
    from dataclasses import replace

    fix = fix_for(finding)
    if fix == finding.fix and finding.fix_hint is None:
        return finding
    hint = finding.hint
    if finding.fix_hint is not None and fix.pass_name != FixSuggestion.MANUAL:
        hint = finding.fix_hint.replace("{pass_name}", fix.pass_name)
    return replace(finding, fix=fix, hint=hint, fix_hint=None)


def rule_links(rule: str) -> list[IndexedLink]:
    """The named links of one rule, most specific first (for the rule's documentation)."""
    return [item for item in named_links() if item.link.rule == rule]


def index_text(passes: Iterable[Any]) -> str:
    """The text of ``atccheck/fix_index.py`` from the passes' ``answers``.

    Raises ValueError when two passes claim the same findings by the same named link.
    """
    claimed: dict[tuple[Any, ...], str] = {}
    rows: list[tuple[int, tuple[Any, ...], str, bool]] = []
    for cls in passes:
        for link in cls.answers:
            if not link.named:
                continue
            key = link.as_data()
            if key in claimed and claimed[key] != cls.name:
                raise ValueError(f"{cls.name} and {claimed[key]} both claim {key}")
            claimed[key] = cls.name
            rows.append((link.rank, key, cls.name, bool(cls.safe)))
    rows.sort(key=lambda row: (row[0], repr(row[1]), row[2]))
    lines = [
        '"""Generated by tools/regen.py from the passes\' ``answers``: do not edit.',
        "",
        "Each named link as (pass, safe, (rule, op type, domain, when, has)), most specific first;",
        "atccheck.fixlinks reads it.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "from typing import Any",
        "",
        "NAMED: tuple[tuple[str, bool, tuple[Any, ...]], ...] = (",
    ]
    for _, key, name, safe in rows:
        lines.append(f"    ({name!r}, {safe}, {key!r}),")
    lines += [")", ""]
    return "\n".join(lines)
