"""reduce-without-axes: a Reduce op relying on 'no axes means every axis', which Ascend does not honour."""

from __future__ import annotations

from collections.abc import Iterable

from atccheck.context import NodeContext
from atccheck.findings import Finding, Severity
from atccheck.rules._attrs import effective_attr, formal_input_names, page_facts
from atccheck.rules.base import Rule, register

KIND = "empty-axes-not-reduced"


@register
class ReduceWithoutAxes(Rule):
    """A ReduceMean/Sum/Max/Min without axes: ONNX reduces every axis, the published Ascend pages say it does not.

    ## What it does
    Fires on a reduce op named by an ``empty-axes-not-reduced`` fact when it has no axes
    (the ``axes`` attribute absent or empty below the opset where axes became an input; the
    ``axes`` input absent or a constant of size 0 from then on) and
    ``noop_with_empty_axes`` is 0. A non-constant axes input is not judged.

    ## Why
    ONNX defines empty axes as a reduction over all axes. The published CANN operator pages
    for ReduceMean, ReduceSum, ReduceMax and ReduceMin say empty axes is not treated as a
    full reduction, so the model converts and returns different numbers.

    ## Example
    ``ReduceMean(x)`` at opset 13 with no ``axes`` attribute on a [2, 3, 4] input: ONNX
    gives a scalar mean; the page says to list every axis.

    ## Fix
    ``atccheck fix`` (explicit-reduce-axes) writes every axis explicitly (safe: same
    result in ONNX).

    ## Facts
    ``op_tables/op_facts.json`` kind ``empty-axes-not-reduced``: the published 9.0 pages of
    ReduceMean, ReduceSum, ReduceMax and ReduceMin (profiles 8.0 and 9.0; other profiles
    get an info, the pages do not speak for them).
    """

    code = "AC306"
    name = "reduce-without-axes"
    severity = Severity.WARNING
    fact_kind = KIND  # runs on the ops these facts name

    def check_node(self, node: NodeContext) -> Iterable[Finding]:
        found = page_facts(node, KIND)
        if found is None:
            return
        here, facts = found
        profile = node.ctx.target.profile.id
        fact = (here or facts)[0]
        noop, _ = effective_attr(node, "noop_with_empty_axes")
        if noop == 1:
            return
        how = self._missing_axes(node)
        if how is None:
            return
        info = node.input_info(0)
        rank = info.rank if info is not None else None
        every = f" (axes {list(range(rank))})" if rank is not None else ""
        if here:
            message = (
                f"{node.op_type} has {how} and noop_with_empty_axes=0: ONNX reduces every axis{every}, but the "
                f"published page says empty axes is not a full reduction in CANN {profile}; it converts with "
                f"different results"
            )
            severity = Severity.WARNING
        else:
            message = (
                f"{node.op_type} has {how} and noop_with_empty_axes=0: ONNX reduces every axis{every}; the "
                f"published 9.0 page says Ascend does not, and CANN {profile} is not covered by that page "
                f"(unverified)"
            )
            severity = Severity.INFO
        yield self.finding(
            node,
            message,
            hint="list every axis explicitly (atccheck fix: explicit-reduce-axes)",
            source=f"op_tables/op_facts.json {KIND}; {fact.source}",
            severity=severity,
            data={"axes": how, "rank": rank, "profile": profile},
        )

    @staticmethod
    def _missing_axes(node: NodeContext) -> str | None:
        """How the node lacks axes ('no axes attribute', 'an empty axes input', ...), None when it has some."""
        names = formal_input_names(node.op_type, node.opset)
        if "axes" in names:
            name = node.input_name(names.index("axes"))
            if not name:
                return "no axes input"
            value = node.ctx.const_value(name)
            if value is None:
                return None  # not a small constant: cannot tell
            return "an empty axes input" if value.size == 0 else None
        axes = node.attrs.get("axes")
        if axes is None:
            return "no axes attribute"
        return "an empty axes attribute" if len(axes) == 0 else None
