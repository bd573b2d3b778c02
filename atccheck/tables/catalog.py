"""The support tables as one object: parsed once, asked by rules, passes and the CLI.

``tables()`` is this installation's set; a rule asks ``ctx.tables.registry("8.0").lookup("",
"Resize")`` or ``tables.op_facts_for(kind, op, profile)`` rather than digging through dicts.
"""

from __future__ import annotations

from functools import cached_property, lru_cache
from typing import Any, Mapping

from atccheck.tables import loader
from atccheck.tables.schema import (
    AtcError,
    AtcOption,
    AttrLimit,
    Kernel,
    Limit,
    OpFact,
    OpSpec,
    Profile,
    Registration,
    RegistryView,
    Soc,
)


class Tables:
    """All support tables, parsed once."""

    def __init__(self, docs: Mapping[str, Mapping[str, Any]]) -> None:
        self.docs = docs
        self.profiles: dict[str, Profile] = loader.load_profiles(docs)
        # Repository path -> a name for people (a mirror's own name can mislead); see label_sources.
        self.source_labels: dict[str, str] = loader.load_source_labels(docs)
        registry = docs["registry.json"]
        self.native_types = frozenset(registry["native_types"])
        self.subgraph_ops = frozenset(registry["subgraph_ops"])
        self._registrations: dict[str, dict[tuple[str, str], Registration]] = loader.load_registrations(docs)
        self._kernels: dict[tuple[str, str, str], Kernel] = loader.load_kernels(docs)
        self._kernel_families = {(k[0], k[1]) for k in self._kernels}
        self.socs: dict[str, Soc] = loader.load_socs(docs)
        self.op_specs: dict[str, OpSpec] = loader.load_op_specs(docs)
        self.attr_limits: tuple[AttrLimit, ...] = loader.load_attr_limits(docs)
        self.op_facts: tuple[OpFact, ...] = loader.load_op_facts(docs)
        self.limits: dict[str, Limit] = loader.load_limits(docs)
        self.atc_errors: dict[str, AtcError] = loader.load_atc_errors(docs)
        self.atc_options: dict[str, AtcOption] = loader.load_atc_options(docs)
        self.atc_options_extra = loader.load_atc_options_extra(docs)

    # ---- queries

    def label_sources(self, source: str) -> str:
        """SOURCE with each mirror repository named for people: 'canndev (2022-06 snapshot):path@commit'
        instead of the mirror's repository name. Machine formats keep the raw source."""
        for repo, label in self.source_labels.items():
            source = source.replace(repo + ":", label + ":").replace(repo + "@", label + "@")
        return source

    def registry(self, profile: str) -> RegistryView:
        regs = self._registrations.get(profile, {})
        return RegistryView(
            profile=profile,
            _by_key=regs,
            _domains=frozenset(domain for domain, _ in regs),
            native_types=self.native_types,
        )

    def kernel(self, release: str, family: str, ascend_op: str) -> Kernel | None:
        return self._kernels.get((release, family, ascend_op))

    def has_kernel_facts(self, release: str, family: str) -> bool:
        """Whether the tables hold kernel configs of this family for this release."""
        return (release, family) in self._kernel_families

    def limit(self, name: str) -> int:
        return self.limits[name].value

    def op_facts_for(self, kind: str, op: str, profile: str | None) -> tuple[OpFact, ...]:
        """Facts of one kind about one ONNX op that hold in this profile (``None``: in any profile)."""
        key = (kind, op, profile or "")
        found = self._op_facts_index.get(key)
        if found is None:
            found = tuple(f for f in self._op_facts_by_op.get(op, ())
                          if f.kind == kind and (profile is None or profile in f.profiles))
            self._op_facts_index[key] = found
        return found

    def ops_with_fact(self, kind: str) -> frozenset[str]:
        """The ONNX ops some op fact of this kind names (any profile)."""
        found = self._ops_by_fact_kind.get(kind)
        if found is None:
            found = self._ops_by_fact_kind[kind] = frozenset(f.op for f in self.op_facts if f.kind == kind)
        return found

    @cached_property
    def ops_with_attr_limits(self) -> frozenset[str]:
        """The ONNX ops attr_limits.json limits (any profile)."""
        return frozenset(limit.op for limit in self.attr_limits)

    def attr_limits_for(self, op: str, profile: str) -> tuple[AttrLimit, ...]:
        key = (op, profile)
        found = self._attr_index.get(key)
        if found is None:
            found = tuple(
                a for a in self._attr_by_op.get(op, ()) if profile in a.profiles and not a.superseded_by_source
            )
            self._attr_index[key] = found
        return found

    @cached_property
    def _op_facts_by_op(self) -> dict[str, list[OpFact]]:
        by_op: dict[str, list[OpFact]] = {}
        for fact in self.op_facts:
            by_op.setdefault(fact.op, []).append(fact)
        return by_op

    @cached_property
    def _attr_by_op(self) -> dict[str, list[AttrLimit]]:
        by_op: dict[str, list[AttrLimit]] = {}
        for limit in self.attr_limits:
            by_op.setdefault(limit.op, []).append(limit)
        return by_op

    @cached_property
    def _op_facts_index(self) -> dict[tuple[str, str, str], tuple[OpFact, ...]]:
        return {}

    @cached_property
    def _attr_index(self) -> dict[tuple[str, str], tuple[AttrLimit, ...]]:
        return {}

    @cached_property
    def _ops_by_fact_kind(self) -> dict[str, frozenset[str]]:
        return {}


@lru_cache(maxsize=1)
def tables() -> Tables:
    """The support tables of this installation (parsed on first use, then cached)."""
    return Tables(loader.read_all())
