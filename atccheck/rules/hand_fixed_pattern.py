"""hand-fixed-pattern: a pattern Huawei's engineers rewrite by hand before ATC in their model ports."""

from __future__ import annotations

from collections.abc import Iterable

from atccheck.context import NodeContext
from atccheck.findings import Finding, Severity
from atccheck.rules._attrs import effective_attr, formal_input_names, reaches_plugin, same_value
from atccheck.rules.base import Rule, register
from atccheck.tables import OpFact

KIND = "hand-fixed-practice"


@register
class HandFixedPattern(Rule):
    """A pattern that Huawei's own model ports rewrite by hand before running ATC.

    ## What it does
    Fires on a node named by a ``hand-fixed-practice`` fact of ``op_tables/op_facts.json``
    for the CANN profile, when the node has the pattern the fact describes: a Clip with a
    ``min`` and no ``max`` (5.0/6.0: the 2022 plugin expands to Cast + ClipByValue only), a
    Pad in ``reflect`` mode (an info: the CANN facts say PadV3 accepts it), a
    RandomNormalLike in the graph (5.0/6.0: no engine's kernel config lists
    RandomStandardNormal in the 2022 tree; on 8.0/9.0 aicpu-fallback reports it). Each
    finding says which CANN fact speaks and which part rests on the practice alone.
    Nodes computed at compile time are not reported. A 1-D Conv, which the speech ports
    rewrite into Unsqueeze + Conv 1xK + Squeeze, is not reported: both Conv plugins already
    do that rewrite.

    ## Why
    The Huawei ModelZoo ports (xcit, TResNet, TDNN) change these patterns before ATC. Where
    the reference facts explain why, the finding says so; where they do not, the practice
    is the only evidence, and the finding lets the user see it before a conversion fails or
    computes something else.

    ## Example
    ``Clip(x, min=0)`` with no max, checked against ``--cann 6.0``.

    ## Fix
    Manual: give Clip an explicit max (the dtype's largest value) or write it as Max(x, min);
    write a reflect Pad as Slice + Concat if the converted model disagrees; drop
    RandomNormalLike from the inference graph (it is training-time noise).

    ## Facts
    ``op_tables/op_facts.json`` kind ``hand-fixed-practice``: the ModelZoo ports
    (Ascend/ModelZoo-PyTorch ACL_PyTorch/contrib xcit, TResNet, audio/tdnn), the Clip plugin
    expansion (cann_onnx_registry.json), PadV3's modes and dtypes (notes/cann_source.md
    section 7) and the RandomStandardNormal kernel entries (op_tables/kernels.json); the 1-D
    Conv fact: cann_onnx_registry.json attribute_or_rank_dependent_mappings ai.onnx::Conv.
    """

    code = "AC311"
    name = "hand-fixed-pattern"
    severity = Severity.WARNING
    fact_kind = KIND  # runs on the ops these facts name

    def check_node(self, node: NodeContext) -> Iterable[Finding]:
        ctx = node.ctx
        if not reaches_plugin(node):
            return
        if any(ctx.is_foldable(o) for o in node.node.output if o):
            return  # computed at compile time
        for fact in ctx.tables.op_facts_for(KIND, node.op_type, ctx.target.profile.id):
            if not self._matches(node, fact):
                continue
            pattern = (fact.params or {}).get("pattern", "")
            yield self.finding(
                node,
                f"{node.op_type} ({pattern}) on CANN {ctx.target.profile.id}: {fact.note}",
                hint="rewrite the pattern before ATC as the Huawei ports do, or verify the converted model against "
                "onnxruntime",
                source=f"op_tables/op_facts.json {KIND}; {fact.source}",
                severity=Severity(fact.severity),
                data={"pattern": pattern, "profile": ctx.target.profile.id},
            )

    @staticmethod
    def _matches(node: NodeContext, fact: OpFact) -> bool:
        if fact.when:
            value, _ = effective_attr(node, fact.when["attr"])
            if not any(same_value(value, v) for v in fact.when["values"]):
                return False
        params = fact.params or {}
        given = _given(node)
        return (all(name in given for name in params.get("present", ()))
                and not any(name in given for name in params.get("absent", ())))


def _given(node: NodeContext) -> set[str]:
    """Names of the inputs and attributes the node sets (an empty input name is not set)."""
    names = formal_input_names(node.op_type, node.opset)
    given = {names[i] for i, name in enumerate(node.node.input) if name and i < len(names)}
    return given | set(node.attrs)
