"""How a profile's parser resolves a node's ``domain::opset::type`` key: one decision for all rules."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from atccheck.context import NodeContext
from atccheck.tables import AI_ONNX, Registration


class Status(enum.Enum):
    NATIVE = "native"  # Constant and friends: the parser maps them without a plugin
    NO_OPSET_IMPORT = "no-opset-import"  # the node's domain is missing from opset_import
    LOCAL_FUNCTION = "local-function"  # calls a model-local function, which the parser drops
    CUSTOM_DOMAIN = "custom-domain"  # a domain the profile registers nothing for
    UNREGISTERED_OP = "unregistered-op"  # no registration of this op at any opset
    OPSET_NOT_REGISTERED = "opset-not-registered"  # registered, but not at the model opset
    OPSET_UNVERIFIED = "opset-unverified"  # only a newer source registers it at this opset
    REGISTERED = "registered"


@dataclass(frozen=True)
class Resolution:
    status: Status
    registration: Registration | None
    opset: int | None


def resolve(node: NodeContext) -> Resolution:
    """How the profile's parser treats this node's ``domain::opset::type`` key (computed once per node)."""
    cache: dict[tuple[str, int], Resolution] = node.ctx.__dict__.setdefault("_resolutions", {})
    key = (node.gnode.graph, node.gnode.index)
    found = cache.get(key)
    if found is None:
        found = cache[key] = _resolve(node)
    return found


def _resolve(node: NodeContext) -> Resolution:
    ctx = node.ctx
    standard = node.domain in ("", AI_ONNX)
    if standard and node.op_type in ctx.tables.native_types:
        return Resolution(Status.NATIVE, None, node.opset)
    opset = node.opset
    if opset is None:
        return Resolution(Status.NO_OPSET_IMPORT, None, None)
    if (node.domain, node.op_type) in ctx.local_functions:
        return Resolution(Status.LOCAL_FUNCTION, None, opset)
    reg = ctx.registration(node.gnode)
    if reg is None:
        if not standard and not ctx.registry.has_domain(node.domain):
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
