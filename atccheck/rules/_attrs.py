"""ONNX attribute semantics and Ascend-op selection shared by the attribute, kernel and dtype rules.

ONNX knowledge here comes from the installed ``onnx`` schemas (defaults, input names);
CANN knowledge comes from the tables (``op_facts.json``). Nothing here reads weights.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from atccheck.context import NodeContext
from atccheck.domains import is_standard
from atccheck.lookup import Status, resolve
from atccheck.model.schema import MISSING, attribute_default, input_names
from atccheck.tables import OpFact

if TYPE_CHECKING:  # pragma: no cover

    from atccheck.findings import Finding, Severity
    from atccheck.rules.base import Rule

# ONNX spells these list defaults in the operator text, not in the schema: an absent
# attribute means "1 along each spatial axis" (strides, dilations) or "no padding" (pads).
IMPLICIT_LIST_DEFAULTS = {"strides": 1, "dilations": 1, "pads": 0}

def onnx_default(op_type: str, opset: int | None, attr: str) -> Any:
    """The ONNX schema default of an attribute, or MISSING when the schema gives none."""
    return attribute_default(op_type, opset, attr)


def effective_attr(node: NodeContext, attr: str) -> tuple[Any, bool]:
    """(value, present): the node's value, else the ONNX default (MISSING when neither)."""
    if attr in node.attrs:
        return node.attrs[attr], True
    return onnx_default(node.op_type, node.opset, attr), False


def same_value(a: Any, b: Any) -> bool:
    """Equality that treats floats stored as float32 and lists element-wise."""
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        try:
            return math.isclose(float(a), float(b), rel_tol=1e-6, abs_tol=1e-9)
        except (TypeError, ValueError):
            return False
    return a == b


def is_default(node: NodeContext, attr: str, value: Any) -> bool:
    """Whether a present attribute value equals what ONNX means by leaving it out."""
    default = onnx_default(node.op_type, node.opset, attr)
    if default is not MISSING:
        return same_value(value, default)
    if attr in IMPLICIT_LIST_DEFAULTS and isinstance(value, (list, tuple)):
        return all(v == IMPLICIT_LIST_DEFAULTS[attr] for v in value)
    return False


def show(value: Any) -> str:
    """A value for a message: floats stored as float32 shown with 7 significant digits."""
    if isinstance(value, float):
        return f"{value:.7g}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(show(v) for v in value) + "]"
    return str(value)


def formal_input_names(op_type: str, opset: int | None) -> list[str]:
    return input_names(op_type, opset or 1) or []


def input_rank(node: NodeContext) -> int | None:
    """Rank of input 0, else the rank kernel_shape implies (N, C + spatial axes)."""
    info = node.input_info(0)
    if info is not None and info.rank is not None:
        return info.rank
    kernel = node.attrs.get("kernel_shape")
    return len(kernel) + 2 if isinstance(kernel, list) and kernel else None


def kernel_spatial(node: NodeContext) -> tuple[int, ...] | None:
    """Kernel sizes: kernel_shape, else the weight's dims after (M, C/group); never its data."""
    kernel = node.attrs.get("kernel_shape")
    if isinstance(kernel, list) and kernel:
        return tuple(int(k) for k in kernel)
    name = node.input_name(1)
    tensor = node.ctx.graph.initializers.get(name) if name else None
    if tensor is not None and len(tensor.dims) >= 3:
        return tuple(int(d) for d in tensor.dims[2:])
    info = node.ctx.info(name) if name else None
    if info is not None and info.shape is not None and len(info.shape) >= 3:
        dims = info.shape[2:]
        if all(isinstance(d, int) for d in dims):
            return tuple(int(d) for d in dims)  # type: ignore[arg-type]
    return None


# --------------------------------------------------------------------------- Ascend ops

# Parser outcomes after which the node reaches its plugin: registered at the model opset, or
# registered there only by the newer source (opset-not-registered warns about that one).
PARSED = frozenset({Status.REGISTERED, Status.OPSET_UNVERIFIED})


def reaches_plugin(node: NodeContext) -> bool:
    """Whether the profile's parser hands this node to a plugin (so its kernels and attributes matter)."""
    return resolve(node).status in PARSED



def page_facts(node: NodeContext, kind: str) -> tuple[tuple[OpFact, ...], tuple[OpFact, ...]] | None:
    """The facts of ``kind`` about a standard-domain node that reaches its plugin: (those that hold in
    the target's profile, those of any profile); None when there are none or the node is not parsed."""
    if not is_standard(node.domain):
        return None
    tables = node.ctx.tables
    facts = tables.op_facts_for(kind, node.op_type, None)
    if not facts or not reaches_plugin(node):
        return None
    return tables.op_facts_for(kind, node.op_type, node.ctx.target.profile.id), facts


def page_finding(rule: "Rule", node: NodeContext, kind: str, fact: OpFact, covered: bool, message: str,
                 severity: "Severity", hint: str, data: dict[str, Any]) -> "Finding":
    """A finding that rests on a published page's fact: an info, marked unverified, where the
    page does not cover the target's profile (``covered`` False); its hint names the fix pass."""
    from atccheck.findings import Severity

    profile = node.ctx.target.profile.id
    if not covered:
        message += f"; CANN {profile} is not covered by that page (unverified)"
        severity = Severity.INFO
    return rule.finding(node, message, hint=f"{hint} (atccheck fix: manual)",
                        fix_hint=f"{hint} (atccheck fix: {{pass_name}})",
                        source=f"op_tables/op_facts.json {kind}; {fact.source}", severity=severity,
                        data={**data, "profile": profile})


def _fact_choice(node: NodeContext, fact: OpFact) -> tuple[str, ...] | None:
    params = fact.params or {}
    choices = params.get("choices", {})
    by = params.get("by")
    if by == "fixed":
        return tuple(choices.get("", ()))
    if by == "kernel_rank":
        kernel = node.attrs.get("kernel_shape")
        rank = len(kernel) if isinstance(kernel, list) and kernel else None
        if rank is None:
            full = input_rank(node)
            rank = full - 2 if full is not None else None
        return tuple(choices[str(rank)]) if rank is not None and str(rank) in choices else None
    if by == "attr":
        value, _ = effective_attr(node, params["attr"])
        if value is MISSING:
            value = params.get("default", MISSING)  # the plugin's own default, where the opset has no such attribute
        key = str(value) if isinstance(value, (str, int)) and not isinstance(value, bool) else None
        return tuple(choices[key]) if key is not None and key in choices else None
    if by == "present":
        name = params["attr"]
        given = name in node.attrs or bool(_input_by_name(node, name))
        return tuple(choices["present" if given else "absent"])
    return None


def _input_by_name(node: NodeContext, name: str) -> str:
    names = formal_input_names(node.op_type, node.opset)
    if name in names:
        return node.input_name(names.index(name))
    return ""


def ascend_ops(node: NodeContext) -> tuple[str, ...] | None:
    """The Ascend op(s) doing this node's work at its opset, or None when they cannot be told.

    A direct registration gives its op. A PartitionedCall gives its only member, or the
    member the plugin picks by kernel rank or attribute (op_facts.json
    partitioned-call-member); otherwise None.
    """
    key = ("ascend_ops", node.gnode.graph, node.gnode.index)
    memo = node.ctx.memo
    if key not in memo:
        memo[key] = _ascend_ops(node)
    return memo[key]


def _ascend_ops(node: NodeContext) -> tuple[str, ...] | None:
    ctx = node.ctx
    reg = ctx.registration(node.gnode)
    opset = node.opset
    if reg is None or opset is None:
        return None
    mappings = reg.mapping_at(opset)
    if len(mappings) != 1:
        return None  # none at this opset, or duplicate registrations (first loaded wins)
    mapping = mappings[0]
    if mapping.ascend_op != "PartitionedCall":
        return (mapping.ascend_op,)
    facts = ctx.tables.op_facts_for("partitioned-call-member", node.op_type, ctx.target.profile.id)
    for fact in facts:
        chosen = _fact_choice(node, fact)
        if chosen:
            return chosen
    if len(mapping.expands_to) == 1:
        return mapping.expands_to
    return None


def composite_members(node: NodeContext) -> tuple[str, ...]:
    """Every Ascend op a node may become at its opset: each registration's op, or the members of its
    PartitionedCall (only the member a partitioned-call-member fact picks, where one applies)."""
    reg = node.ctx.registration(node.gnode)
    if reg is None or node.opset is None:
        return ()
    facts = node.ctx.tables.op_facts_for("partitioned-call-member", node.op_type, node.ctx.target.profile.id)
    members: list[str] = []
    for mapping in reg.mapping_at(node.opset):
        if mapping.ascend_op != "PartitionedCall":
            chosen: tuple[str, ...] = (mapping.ascend_op,)
        else:
            chosen = next((c for c in (_fact_choice(node, f) for f in facts) if c), mapping.expands_to)
        members.extend(op for op in chosen if op not in members)
    return tuple(members)


def fact_applies(node: NodeContext, fact: OpFact) -> bool:
    """The fact's opsets (if any) include the node's opset."""
    return fact.opsets is None or (node.opset is not None and node.opset in fact.opsets)


def source_kind(source: str) -> str:
    """'published page' for a hiascend.com URL, else 'CANN source'."""
    return "published page" if source.startswith("http") else "CANN source"
