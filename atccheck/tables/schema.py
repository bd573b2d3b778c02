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
class ReleaseLine:
    """A CANN release line (major.minor, as in 8.1.RC1 or 6.0.1) a profile speaks for, and why."""

    line: str
    why: str
    source: str


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
    # The release lines (8.0, 8.1) whose numbers (8.1.RC1, 8.0.RC3) pick this profile.
    releases: tuple[ReleaseLine, ...] = ()

    @property
    def release_lines(self) -> tuple[str, ...]:
        return tuple(r.line for r in self.releases)


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
        """Input dtypes of the AI Core kernel (static shapes); None when unknown (op_select_format) or no kernel."""
        if not self.aicore or self.aicore.get("dtypes") is None:
            return None
        return tuple(self.aicore["dtypes"])

    @property
    def select_format(self) -> Mapping[str, Any] | None:
        """What the op's op_select_format offers on this family (curated), or None: the config lists the
        dtypes itself, or the function was not read."""
        return self.aicore.get("select_format") if self.aicore else None

    def select_format_answer(self, dynamic: bool) -> Mapping[str, Any] | None:
        """op_select_format's answer for static or dynamic input shapes: ``dtypes`` (of the data input),
        or ``unknown`` (why the code does not answer), or ``no_kernel`` (no dynamic-shape kernel)."""
        facts = self.select_format
        return facts.get("dynamic" if dynamic else "static") if facts else None


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
    # axis-not-flattened | infer-shape-check; the kinds of op_tables/curated/op_facts.json are copied as they are
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
class InferredOutput:
    """One output of an Ascend infer-shape fact: its shape as an expression over the ONNX node, and the value
    that fills the rows past the real result when the output is padded to a fixed size (None: not padded)."""

    index: int
    shape: Any  # see infer_shapes.json's description; None where the shape is a run-time length or unknown
    padding: int | None
    formula: str


@dataclass(frozen=True)
class InferShapeFact:
    """How Ascend's own infer-shape function sizes a data-dependent ONNX op's outputs (infer_shapes.json)."""

    op: str
    profiles: tuple[str, ...]
    era: str
    ascend_op: str
    static: str  # always | when | never | unknown
    when: Mapping[str, Any] | None  # constant_inputs, value_range
    otherwise: str | None  # dynamic | infer-fails | unknown: what the function does when ``when`` fails
    onnx_agrees: bool
    outputs: tuple[InferredOutput, ...]
    padding_note: str | None
    note: str
    source: str


@dataclass(frozen=True)
class ParserCheck:
    """A graph-level check of ATC's ONNX parser and what it does in some profiles (parser_checks.json)."""

    check: str  # root-graph-without-input | graph-without-output | tensor-dtype-undefined | ...
    profiles: tuple[str, ...]
    verdict: str  # rejected | unread | constant | accepted | refused-by-loader
    atc_error: str | None
    message: str | None  # the parser's message, as ATC prints it
    condition: str
    dtypes: tuple[int, ...] | None  # tensor-dtype-undefined: the ONNX data types the parser maps
    unknown_dtypes: tuple[int, ...] | None  # ... and those the sources bracketing the profile disagree on
    source: str


@dataclass(frozen=True)
class PluginRefusal:
    """A condition under which an ONNX parser plugin refuses a node (plugin_refusals.json).

    ``condition`` is in the language of ``atccheck.rules._plugin_conditions`` (None: every node of
    the op, for a fact that is not ``evaluable``). ``profiles``: where the refusal is known to
    hold; ``unknown_profiles``: where the source cannot tell; ``covered``: profiles where another
    rule already reports the same condition (left out of ``profiles``).
    """

    id: str
    domain: str
    op: str
    opsets: tuple[int, ...]
    check: str
    stage: str  # parse-params | op-to-graph
    atc_error: str
    condition: Mapping[str, Any] | None
    evaluable: bool
    message: str | None
    channel: str
    profiles: tuple[str, ...]
    unknown_profiles: tuple[str, ...]
    covered: tuple[str, ...]
    note: str | None
    profile_basis: str  # why the fact holds, or is unknown, in its profiles
    source: str
    lines: tuple[int, int]


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


@dataclass(frozen=True)
class PrecisionMode:
    """One --precision_mode / --precision_mode_v2 value and the dtype strategy GE applies for it."""

    mode: str
    option: str
    strategy: str  # force-low | prefer-origin | mixed | origin | force-fp32 | hif8
    low: str | None  # float16 | bfloat16 | None: the dtype float32 compute is lowered to
    cube_low_first: bool = False  # cube ops ask for the low dtype first (allow_fp32_to_fp16)


@dataclass(frozen=True)
class PrecisionFacts:
    """precision.json: precision modes, the precision_reduce lists per kernel family, cube ops, keep_dtype."""

    modes: Mapping[str, PrecisionMode]
    strategy_sources: Mapping[str, str]
    modes_source: str
    default_mode: str
    keep: PrecisionMode  # how a node in the --keep_dtype list is matched
    keep_no_effect_under: tuple[str, ...]
    keep_source: str
    dtype_sensitive: frozenset[str]
    dtype_sensitive_source: str
    cube_ops: frozenset[str]
    cube_source: str
    engine_source: str
    flag_source: str
    lists: Mapping[tuple[str, str], tuple[frozenset[str], frozenset[str], str]]  # (release, family) -> white, black, source
    # ONNX op pairs ATC fuses into one kernel (first op's type, second op's type) -> source
    fusions: Mapping[tuple[str, str], str] = field(default_factory=dict)

    def policy(self, release: str, family: str, op: str) -> str | None:
        """white, black or gray for an Ascend op on a kernel family; None when the release has no lists."""
        found = self.lists.get((release, family))
        if found is None:
            return None
        white, black, _ = found
        return "white" if op in white else "black" if op in black else "gray"

    def lists_source(self, release: str, family: str) -> str | None:
        found = self.lists.get((release, family))
        return found[2] if found else None

    def releases(self) -> frozenset[str]:
        return frozenset(release for release, _ in self.lists)
