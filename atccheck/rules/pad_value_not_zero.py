"""pad-value-not-zero: a constant-mode Pad that fills with a value other than 0, which the Pad page rules out."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from atccheck.context import NodeContext
from atccheck.findings import Finding, Severity
from atccheck.rules._attrs import formal_input_names, page_facts, page_finding
from atccheck.rules.base import Rule, register

KIND = "pad-value-zero"


@register
class PadValueNotZero(Rule):
    """A Pad in constant mode whose fill value is not 0 (``F.pad(x, p, value=-inf)``), which the Pad page rules out.

    ## What it does
    Fires on a node named by a ``pad-value-zero`` fact (Pad) in ``constant`` mode (the
    default) when its fill value is a constant other than 0: the ``constant_value`` input
    from opset 11 on, the ``value`` attribute before. A fill computed at run time is not
    judged, nor is a Pad whose output folds to a constant at build time
    (``--oo_constant_folding`` defaults to true).

    ## Why
    The published CANN Pad page says constant mode is supported only with constant_value 0.
    ONNX allows any value; exporters write -inf before a max pool, or 1 for masks.

    ## Example
    ``Pad(x[1, 8, 16, 16], pads=[0, 0, 1, 1, 0, 0, 1, 1], constant_value=-inf)``.

    ## Fix
    ``atccheck fix`` (pad-zero-then-fill, safe) pads with 0 and puts the value back where the
    padding is: ``Where(mask, Pad(x, 0), value)``, the mask being a Pad of ones the shape of
    ``x``. Exact: every element is chosen, never computed.

    ## Facts
    ``op_tables/op_facts.json`` kind ``pad-value-zero``: the constraint of the published Pad
    page (9.0; profiles 8.0 and 9.0; other profiles get an info, the page does not speak for
    them).
    """

    code = "AC310"
    name = "pad-value-not-zero"
    severity = Severity.ERROR
    fact_kind = KIND  # runs on the ops these facts name

    def check_node(self, node: NodeContext) -> Iterable[Finding]:
        found = page_facts(node, KIND)
        if found is None or str(node.attr("mode", "constant")) != "constant":
            return
        if any(node.ctx.is_foldable(o) for o in node.node.output if o):
            return
        here, facts = found
        for fact in here or facts:
            value = fill_value(node, fact.params or {})
            if value is None or value == 0:
                continue
            yield page_finding(
                self, node, KIND, fact, bool(here),
                f"{node.op_type} fills with {value:g} in constant mode; the published page says {fact.note}",
                Severity(fact.severity), "pad with 0 and fill the border apart", {"value": value},
            )


def fill_value(node: NodeContext, params: Mapping[str, Any]) -> float | None:
    """The constant a Pad fills with (0 when none is given), or None when it is not a constant."""
    if "constant_value" in formal_input_names(node.op_type, node.opset):
        name = node.input_name(int(params.get("index", 2)))
        if not name:
            return 0.0
        value = node.ctx.const_value(name)
        return float(value.reshape(-1)[0]) if value is not None and value.size == 1 else None
    return float(node.attr(str(params.get("attr", "value")), 0.0))

