"""The records of the support tables: small frozen dataclasses, one per kind of table entry.

Each mirrors one entry of a JSON table in ``op_tables/`` (see ``loader`` for how they are read
and ``tools/build_op_tables.py`` for how the tables are built from the reference facts).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from atccheck.domains import AI_ONNX, normalize_domain  # re-exported through atccheck.tables


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
    # The profile the CLI and the library use when none is given (exactly one is).
    default: bool = False


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
    # last-axis-step-one | pad-value-zero | hand-fixed-practice | pool-aicpu-graph | shape-value-inputs |
    # axis-not-flattened; the kinds of op_tables/curated/op_facts.json are copied as they are
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
    kernel: str | None = None  # the Ascend kernel whose source sets the limit, when it is one kernel's


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
