"""How a profile's parser resolves a node's ``domain::opset::type`` key: one decision for all.

ATC's ONNX parser looks every node up by ``<domain>::<model opset>::<OpType>`` with no
fallback (hicann/ge parser/parser/onnx/onnx_parser.cc). :func:`resolve` says what that lookup
gives a node of a checked model; the rules that report unregistered ops and opsets, the
pre-check report and the passes that move a model's opset all ask it. :func:`lookup_score`
counts, for a whole model at a candidate opset, the keys the parser fails on and those it may
fail on, so convert-opset can rank opsets without running the checker.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING

from atccheck.domains import AI_ONNX, STANDARD_DOMAINS, is_standard, opset_for
from atccheck.model.schema import attribute_type_mismatches
from atccheck.tables import Registration, RegistryView, Tables

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.context import NodeContext
    from atccheck.model.graph import GraphIndex


class Status(enum.Enum):
    NATIVE = "native"  # Constant and friends: the parser maps them without a plugin
    NO_OPSET_IMPORT = "no-opset-import"  # the node's domain is missing from opset_import
    LOCAL_FUNCTION = "local-function"  # calls a model-local function, which the parser drops
    CUSTOM_DOMAIN = "custom-domain"  # a domain the profile registers nothing for
    UNREGISTERED_OP = "unregistered-op"  # no registration of this op at any opset
    OPSET_NOT_REGISTERED = "opset-not-registered"  # registered, but not at the model opset
    OPSET_UNVERIFIED = "opset-unverified"  # only a newer source registers it at this opset
    REGISTERED = "registered"


# Keys the parser fails on (an error finding each), and keys it may fail on (a warning).
FAILS = frozenset({Status.UNREGISTERED_OP, Status.OPSET_NOT_REGISTERED})
DOUBTFUL = frozenset({Status.OPSET_UNVERIFIED})


@dataclass(frozen=True)
class Resolution:
    status: Status
    registration: Registration | None
    opset: int | None


def resolve(node: "NodeContext") -> Resolution:
    """How the profile's parser treats this node's ``domain::opset::type`` key (computed once per node)."""
    cache: dict[tuple[str, int], Resolution] = node.ctx.__dict__.setdefault("_resolutions", {})
    key = (node.gnode.graph, node.gnode.index)
    found = cache.get(key)
    if found is None:
        ctx = node.ctx
        found = cache[key] = resolve_key(node.domain, node.op_type, node.opset, ctx.tables, ctx.registry,
                                         ctx.local_functions)
    return found


def resolve_key(domain: str, op_type: str, opset: int | None, tables: Tables, registry: RegistryView,
                local_functions: frozenset[tuple[str, str]] | set[tuple[str, str]]) -> Resolution:
    """The parser's answer for one key, from the profile's registry."""
    standard = is_standard(domain)
    if standard and op_type in tables.native_types:
        return Resolution(Status.NATIVE, None, opset)
    if opset is None:
        return Resolution(Status.NO_OPSET_IMPORT, None, None)
    if (domain, op_type) in local_functions:
        return Resolution(Status.LOCAL_FUNCTION, None, opset)
    reg = registry.lookup(domain, op_type)
    if reg is None:
        if not standard and not registry.has_domain(domain):
            return Resolution(Status.CUSTOM_DOMAIN, None, opset)
        return Resolution(Status.UNREGISTERED_OP, None, opset)
    if reg.registered_at(opset):
        return Resolution(Status.REGISTERED, reg, opset)
    if opset in reg.unverified_opsets:
        return Resolution(Status.OPSET_UNVERIFIED, reg, opset)
    if not reg.opsets:
        # Only a newer source registers it, and not at this opset: for this profile it is unregistered.
        return Resolution(Status.UNREGISTERED_OP, reg, opset)
    return Resolution(Status.OPSET_NOT_REGISTERED, reg, opset)


@dataclass(frozen=True)
class LookupScore:
    """What checking the model at one opset reports about its keys: errors, then warnings."""

    errors: int
    warnings: int


def lookup_score(graph: "GraphIndex", opset: int, tables: Tables, registry: RegistryView) -> LookupScore:
    """The parser-lookup errors and warnings of the model if its ai.onnx opset were ``opset``.

    Counted as check reports them: a finding per node whose key fails (error) or may fail
    (warning), one more error when the opset is beyond every registration of the profile and a
    standard node fails, and one per standard node whose attributes are not of the types the
    ONNX schema declares at that opset.
    """
    imports = {entry.domain: entry.version for entry in graph.model.opset_import}
    for domain in STANDARD_DOMAINS:
        if domain in imports:
            imports[domain] = opset
    local = frozenset((f.domain, f.name) for f in graph.model.functions)
    errors = warnings = 0
    standard_fails = False
    for gnode in graph.nodes:
        node_opset = opset_for(imports, gnode.domain)
        status = resolve_key(gnode.domain, gnode.op_type, node_opset, tables, registry, local).status
        if status in FAILS:
            errors += 1
            standard_fails = standard_fails or is_standard(gnode.domain)
        elif status in DOUBTFUL:
            warnings += 1
        if is_standard(gnode.domain) and gnode.node.attribute and attribute_type_mismatches(gnode.node, node_opset):
            errors += 1
    model_opset = opset_for(imports, "")
    highest = registry.max_opset(AI_ONNX)
    if model_opset is not None and highest and model_opset > highest and standard_fails:
        errors += 1
    return LookupScore(errors, warnings)
