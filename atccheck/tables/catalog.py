"""The support tables as one object: parsed once, asked by rules, passes and the CLI.

``tables()`` is this installation's set; a rule asks ``ctx.tables.registry("8.0").lookup("",
"Resize")`` or ``tables.op_facts_for(kind, op, profile)`` rather than digging through dicts.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property, lru_cache
from typing import Any

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
    """All support tables, each read, parsed and turned into records on first use.

    A run pays only for the tables it asks about: ``check`` never reads atc_errors.json, and
    builds the records of one profile's registrations and one (release, family)'s kernels
    rather than all of them. The values are the same as building every table up front.
    """

    def __init__(self, docs: Mapping[str, Mapping[str, Any]]) -> None:
        self.docs = docs
        self._registrations: dict[str, dict[tuple[str, str], Registration]] = {}
        self._kernels: dict[tuple[str, str], dict[str, Kernel]] = {}

    @cached_property
    def profiles(self) -> dict[str, Profile]:
        return loader.load_profiles(self.docs)

    @cached_property
    def default_profile(self) -> Profile:
        """The profile used when none is given (op_tables/curated/profiles.json ``default``)."""
        return next(p for p in self.profiles.values() if p.default)

    @cached_property
    def default_precision_mode(self) -> str:
        """ATC's own --precision_mode default, as the option table states it (its first word)."""
        option = self.atc_options["--precision_mode"]
        value = (option.default or "").split(" ", 1)[0]
        if value not in (option.allowed_values or ()):
            raise ValueError(f"op_tables/atc_options.json: --precision_mode default {option.default!r} is not a value")
        return value

    @cached_property
    def source_labels(self) -> dict[str, str]:
        """Repository path -> a name for people (a mirror's own name can mislead); see label_sources."""
        return loader.load_source_labels(self.docs)

    @cached_property
    def native_types(self) -> frozenset[str]:
        return frozenset(self.docs["registry.json"]["native_types"])

    @cached_property
    def subgraph_ops(self) -> frozenset[str]:
        return frozenset(self.docs["registry.json"]["subgraph_ops"])

    @cached_property
    def socs(self) -> dict[str, Soc]:
        return loader.load_socs(self.docs)

    @cached_property
    def op_specs(self) -> dict[str, OpSpec]:
        return loader.load_op_specs(self.docs)

    @cached_property
    def attr_limits(self) -> tuple[AttrLimit, ...]:
        return loader.load_attr_limits(self.docs)

    @cached_property
    def op_facts(self) -> tuple[OpFact, ...]:
        return loader.load_op_facts(self.docs)

    @cached_property
    def limits(self) -> dict[str, Limit]:
        return loader.load_limits(self.docs)

    @cached_property
    def atc_errors(self) -> dict[str, AtcError]:
        return loader.load_atc_errors(self.docs)

    @cached_property
    def atc_options(self) -> dict[str, AtcOption]:
        return loader.load_atc_options(self.docs)

    @cached_property
    def atc_options_extra(self) -> dict[str, Any]:
        return loader.load_atc_options_extra(self.docs)

    @cached_property
    def _registry_entries(self) -> dict[str, list[dict[str, Any]]]:
        """Raw registry entries by profile (records are built per profile, on first ask)."""
        by_profile: dict[str, list[dict[str, Any]]] = {}
        for e in self.docs["registry.json"]["entries"]:
            by_profile.setdefault(e["profile"], []).append(e)
        return by_profile

    @cached_property
    def _kernel_entries(self) -> dict[tuple[str, str], list[dict[str, Any]]]:
        """Raw kernel entries by (release, family) (records are built per family, on first ask)."""
        by_family: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for e in self.docs["kernels.json"]["entries"]:
            by_family.setdefault((e["release"], e["family"]), []).append(e)
        return by_family

    def _registrations_of(self, profile: str) -> dict[tuple[str, str], Registration]:
        regs = self._registrations.get(profile)
        if regs is None:
            regs = self._registrations[profile] = loader.registrations_of(self._registry_entries.get(profile, []))
        return regs

    def _kernels_of(self, release: str, family: str) -> dict[str, Kernel]:
        key = (release, family)
        found = self._kernels.get(key)
        if found is None:
            found = {}
            for e in self._kernel_entries.get(key, ()):
                k = loader.kernel(e)
                found[k.op] = k  # a later entry for the same op wins, as in load_kernels
            self._kernels[key] = found
        return found

    # ---- queries

    def label_sources(self, source: str) -> str:
        """SOURCE with each mirror repository named for people: 'canndev (2022-06 snapshot):path@commit'
        instead of the mirror's repository name. Machine formats keep the raw source."""
        for repo, label in self.source_labels.items():
            source = source.replace(repo + ":", label + ":").replace(repo + "@", label + "@")
        return source

    def registry(self, profile: str) -> RegistryView:
        regs = self._registrations_of(profile)
        return RegistryView(
            profile=profile,
            _by_key=regs,
            _domains=frozenset(domain for domain, _ in regs),
            native_types=self.native_types,
        )

    def kernel(self, release: str, family: str, ascend_op: str) -> Kernel | None:
        return self._kernels_of(release, family).get(ascend_op)

    def has_kernel_facts(self, release: str, family: str) -> bool:
        """Whether the tables hold kernel configs of this family for this release."""
        return (release, family) in self._kernel_entries

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
    return Tables(loader.LazyDocs())
