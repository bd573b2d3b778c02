"""Typed, read-only access to ``op_tables/`` (the support tables shipped in the wheel).

The tables are JSON written by ``tools/build_op_tables.py``. They are read once per process
with :mod:`importlib.resources` and wrapped in small frozen dataclasses, so a rule asks
``tables().registry("8.0").lookup("", "Resize")`` rather than digging through dicts.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from importlib import resources
from typing import Any, Iterator, Mapping

TABLE_FILES = (
    "atc_errors.json",
    "atc_options.json",
    "attr_limits.json",
    "kernels.json",
    "limits.json",
    "op_facts.json",
    "op_spec.json",
    "profiles.json",
    "registry.json",
    "socs.json",
)

AI_ONNX = "ai.onnx"


def normalize_domain(domain: str) -> str:
    """The parser's spelling of a node domain: the empty domain is ``ai.onnx``."""
    return domain or AI_ONNX


def read_table(name: str) -> dict[str, Any]:
    """The raw JSON document of one table."""
    text = resources.files("atccheck.op_tables").joinpath(name).read_text(encoding="utf-8")
    return json.loads(text)


# --------------------------------------------------------------------------- records


@dataclass(frozen=True)
class Profile:
    id: str
    title: str
    basis: str
    kernel_release: str
    mapping_from: str
    unregistered_error: str
    single_opset_import: bool
    input_shape_ranges: bool
    precision_mode_v2: bool
    note: str
    source: tuple[str, ...]
    # The code ATC prints for a .onnx file outside (0, INT_MAX] bytes (E19015 or E13015).
    file_size_error: str
    # How the parser names the synthetic Constant node of an initializer: a str.format pattern of name, i.
    initializer_node_name: str
    # Whether the published 9.0 op pages speak for this profile.
    published_pages: bool
    # Field name -> the reference record that field rests on.
    field_sources: Mapping[str, str] = field(hash=False, compare=False)
    # Why an opset kept apart as unverified is not an error for this profile (None: none are kept apart).
    unverified_basis: str | None = None


@dataclass(frozen=True)
class AscendMapping:
    opsets: tuple[int, ...]
    ascend_op: str
    expands_to: tuple[str, ...]
    experimental: bool
    source: str

    @property
    def ascend_ops(self) -> tuple[str, ...]:
        """The Ascend IR ops this registration produces (a PartitionedCall's expansion)."""
        if self.ascend_op == "PartitionedCall":
            return self.expands_to
        return (self.ascend_op,)


@dataclass(frozen=True)
class Registration:
    """One ONNX op as a profile's parser sees it."""

    profile: str
    domain: str
    op: str
    opsets: tuple[int, ...]
    documented_opsets: tuple[int, ...] | None
    source_only_opsets: tuple[int, ...]
    unverified_opsets: tuple[int, ...]
    ascend: tuple[AscendMapping, ...]
    source: tuple[str, ...]

    def registered_at(self, opset: int) -> bool:
        return opset in self.opsets

    def mapping_at(self, opset: int) -> tuple[AscendMapping, ...]:
        return tuple(m for m in self.ascend if opset in m.opsets)


@dataclass(frozen=True)
class RegistryView:
    profile: str
    _by_key: Mapping[tuple[str, str], Registration]
    _domains: frozenset[str]
    native_types: frozenset[str]

    def lookup(self, domain: str, op_type: str) -> Registration | None:
        return self._by_key.get((normalize_domain(domain), op_type))

    def has_domain(self, domain: str) -> bool:
        return normalize_domain(domain) in self._domains

    def __iter__(self) -> Iterator[Registration]:
        return iter(self._by_key.values())

    def max_opset(self, domain: str = AI_ONNX) -> int:
        domain = normalize_domain(domain)
        return max((max(r.opsets) for r in self._by_key.values() if r.domain == domain and r.opsets), default=0)


@dataclass(frozen=True)
class Kernel:
    release: str
    family: str
    op: str
    aicore: Mapping[str, Any] | None
    aicpu: bool
    aicpu_dtypes: tuple[str, ...]
    source: str
    host_cpu: bool | None = None  # a host CPU kernel (8.1 package); None = not known for this release

    @property
    def aicore_dtypes(self) -> tuple[str, ...] | None:
        """Input dtypes of the AI Core kernel; None when unknown (op_select_format) or no kernel."""
        if not self.aicore or self.aicore.get("dtypes") is None:
            return None
        return tuple(self.aicore["dtypes"])


@dataclass(frozen=True)
class Soc:
    name: str
    product: str
    short_soc: str
    kernel_family: str
    platform: Mapping[str, Any] | None
    memory_bytes: int | None
    memory_basis: str
    memory_source: str | None
    fixpipe: bool
    dynamic_shape: bool
    bf16_precision: bool
    fp32_vadds: bool | None
    gear_max: int
    source: tuple[str, ...]


@dataclass(frozen=True)
class SpecInput:
    name: str
    index: int
    dtypes: tuple[str, ...] | None
    ranks: tuple[int, ...] | None
    optional: bool
    const_required: bool
    variadic: bool
    note: str | None


@dataclass(frozen=True)
class OpSpec:
    """One op page of Huawei's published ONNX operator list."""

    op: str
    doc_name: str
    opsets: tuple[int, ...]
    custom_op: bool
    inputs: tuple[SpecInput, ...]
    outputs: tuple[Mapping[str, Any], ...]
    constraints: tuple[str, ...]
    source_version: str
    source: str

    def input(self, index: int) -> SpecInput | None:
        for item in self.inputs:
            if item.index == index or (item.variadic and index >= item.index):
                return item
        return None


@dataclass(frozen=True)
class AttrLimit:
    op: str
    attr: str
    kind: str  # enum | range | unsupported | required | parity | length
    values: tuple[Any, ...] | None
    min: float | None
    max: float | None
    axes: str | None  # "spatial" or None (every value)
    when_rank: int | None
    severity: str
    effect: str
    atc_error: str | None
    profiles: tuple[str, ...]
    note: str | None
    superseded_by_source: str | None
    source: str


@dataclass(frozen=True)
class OpFact:
    """An op behaviour that is not an attribute range (op_facts.json)."""

    kind: str  # ignored-attr | empty-axes-not-reduced | origin-dtype-rejected | ai-core-rewrite |
    # partitioned-call-member | check-supported-rejects | input-shape-required | negative-indices-rejected |
    # last-axis-step-one | pad-value-zero | hand-fixed-practice | pool-aicpu-graph | shape-value-inputs
    op: str
    attr: str | None
    profiles: tuple[str, ...]
    values: tuple[Any, ...] | None
    absent: bool | None
    when: Mapping[str, Any] | None
    opsets: tuple[int, ...] | None
    params: Mapping[str, Any] | None
    severity: str
    note: str | None
    source: str


@dataclass(frozen=True)
class Limit:
    name: str
    value: int
    meaning: str
    source: str


@dataclass(frozen=True)
class AtcError:
    code: str
    title: str | None
    template: str | None
    meaning: str | None
    fix: str | None
    era: str
    source: str


@dataclass(frozen=True)
class AtcOption:
    name: str
    relevance: str | None
    type: str | None
    allowed_values: tuple[str, ...] | None
    default: str | None
    conflicts_with: tuple[str, ...]
    related_error_codes: tuple[str, ...]
    product_notes: tuple[str, ...]
    source: str


# --------------------------------------------------------------------------- the set


def _tuple(value: Any) -> tuple:
    return tuple(value) if value is not None else ()


class Tables:
    """All support tables, parsed once."""

    def __init__(self, docs: Mapping[str, Mapping[str, Any]]) -> None:
        self.docs = docs
        self.profiles: dict[str, Profile] = {
            e["id"]: Profile(**{**e, "source": tuple(e["source"])}) for e in docs["profiles.json"]["entries"]
        }
        # Repository path -> a name for people (a mirror's own name can mislead); see label_sources.
        self.source_labels: dict[str, str] = {
            repo: item["label"] for repo, item in docs["profiles.json"].get("source_labels", {}).items()
        }
        registry = docs["registry.json"]
        self.native_types = frozenset(registry["native_types"])
        self.subgraph_ops = frozenset(registry["subgraph_ops"])
        self._registrations: dict[str, dict[tuple[str, str], Registration]] = {}
        for e in registry["entries"]:
            reg = Registration(
                profile=e["profile"],
                domain=e["domain"],
                op=e["op"],
                opsets=tuple(e["opsets"]),
                documented_opsets=tuple(e["documented_opsets"]) if "documented_opsets" in e else None,
                source_only_opsets=_tuple(e.get("source_only_opsets")),
                unverified_opsets=_tuple(e.get("unverified_opsets")),
                ascend=tuple(
                    AscendMapping(
                        opsets=tuple(m["opsets"]),
                        ascend_op=m["ascend_op"],
                        expands_to=_tuple(m.get("expands_to")),
                        experimental=bool(m.get("experimental")),
                        source=m["source"],
                    )
                    for m in e["ascend"]
                ),
                source=tuple(e["source"]),
            )
            self._registrations.setdefault(reg.profile, {})[(reg.domain, reg.op)] = reg
        self._kernels: dict[tuple[str, str, str], Kernel] = {}
        for e in docs["kernels.json"]["entries"]:
            kernel = Kernel(
                release=e["release"],
                family=e["family"],
                op=e["op"],
                aicore=e["aicore"],
                aicpu=e["aicpu"],
                aicpu_dtypes=_tuple(e.get("aicpu_dtypes")),
                source=e["source"],
                host_cpu=e.get("host_cpu"),
            )
            self._kernels[(kernel.release, kernel.family, kernel.op)] = kernel
        self._kernel_families = {(k[0], k[1]) for k in self._kernels}
        self.socs: dict[str, Soc] = {
            e["name"]: Soc(**{**e, "source": tuple(e["source"])}) for e in docs["socs.json"]["entries"]
        }
        self.op_specs: dict[str, OpSpec] = {}
        for e in docs["op_spec.json"]["entries"]:
            self.op_specs[e["op"]] = OpSpec(
                op=e["op"],
                doc_name=e["doc_name"],
                opsets=tuple(e["opsets"]),
                custom_op=e["custom_op"],
                inputs=tuple(
                    SpecInput(
                        name=i["name"],
                        index=i["index"],
                        dtypes=tuple(i["dtypes"]) if "dtypes" in i else None,
                        ranks=tuple(i["ranks"]) if "ranks" in i else None,
                        optional=bool(i.get("optional")),
                        const_required=bool(i.get("const_required")),
                        variadic=bool(i.get("variadic")),
                        note=i.get("note"),
                    )
                    for i in e["inputs"]
                ),
                outputs=tuple(e["outputs"]),
                constraints=tuple(e["constraints"]),
                source_version=e["source_version"],
                source=e["source"],
            )
        self.attr_limits: tuple[AttrLimit, ...] = tuple(
            AttrLimit(
                op=e["op"],
                attr=e["attr"],
                kind=e["kind"],
                values=tuple(e["values"]) if "values" in e else None,
                min=e.get("min"),
                max=e.get("max"),
                axes=e.get("axes"),
                when_rank=e.get("when_rank"),
                severity=e["severity"],
                effect=e["effect"],
                atc_error=e.get("atc_error"),
                profiles=tuple(e["profiles"]),
                note=e.get("note"),
                superseded_by_source=e.get("superseded_by_source"),
                source=e["source"],
            )
            for e in docs["attr_limits.json"]["entries"]
        )
        self.op_facts: tuple[OpFact, ...] = tuple(
            OpFact(
                kind=e["kind"],
                op=e["op"],
                attr=e.get("attr"),
                profiles=tuple(e["profiles"]),
                values=tuple(e["values"]) if e.get("values") is not None else None,
                absent=e.get("absent"),
                when=e.get("when"),
                opsets=tuple(e["opsets"]) if e.get("opsets") is not None else None,
                params=e.get("params"),
                severity=e["severity"],
                note=e.get("note"),
                source=e["source"],
            )
            for e in docs["op_facts.json"]["entries"]
        )
        self.limits: dict[str, Limit] = {e["name"]: Limit(**e) for e in docs["limits.json"]["entries"]}
        self.atc_errors: dict[str, AtcError] = {
            e["code"]: AtcError(
                code=e["code"],
                title=e.get("title"),
                template=e.get("template"),
                meaning=e.get("meaning"),
                fix=e.get("fix"),
                era=e["era"],
                source=e["source"],
            )
            for e in docs["atc_errors.json"]["entries"]
        }
        options = docs["atc_options.json"]
        self.atc_options: dict[str, AtcOption] = {
            e["name"]: AtcOption(
                name=e["name"],
                relevance=e.get("relevance"),
                type=e.get("type"),
                allowed_values=tuple(e["allowed_values"]) if e.get("allowed_values") else None,
                default=e.get("default"),
                conflicts_with=_tuple(e.get("conflicts_with")),
                related_error_codes=_tuple(e.get("related_error_codes")),
                product_notes=_tuple(e.get("product_notes")),
                source=e["source"],
            )
            for e in options["entries"]
        }
        self.atc_options_extra = {k: v for k, v in options.items() if k not in ("entries",)}

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
    return Tables({name: read_table(name) for name in TABLE_FILES})


__all__ = [
    "AI_ONNX",
    "AscendMapping",
    "AtcError",
    "AtcOption",
    "AttrLimit",
    "Kernel",
    "Limit",
    "OpFact",
    "OpSpec",
    "Profile",
    "Registration",
    "RegistryView",
    "Soc",
    "SpecInput",
    "TABLE_FILES",
    "Tables",
    "normalize_domain",
    "read_table",
    "tables",
]
