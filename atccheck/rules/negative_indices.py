"""negative-indices: constant indices below zero where the op's published page rules them out."""

from __future__ import annotations

from collections.abc import Iterable

from atccheck.context import NodeContext
from atccheck.findings import Finding, Severity
from atccheck.rules._attrs import page_facts, page_finding
from atccheck.rules.base import Rule, register

KIND = "negative-indices-rejected"


@register
class NegativeIndices(Rule):
    """Constant Gather or ScatterND indices that count from the end (-1 for the last), which the pages rule out.

    ## What it does
    Fires on a node named by a ``negative-indices-rejected`` fact when the index input the
    fact names is a constant (an initializer, a Constant, or foldable from them) holding a
    value below zero. Indices computed at run time are not judged: their values are not
    known before the model runs. Nor is a node whose outputs fold to constants (a ``Gather``
    of a static ``Shape``, say): ATC computes it while building (``--oo_constant_folding``
    defaults to true), not with the op the page describes.

    ## Why
    ONNX lets ``Gather`` and ``ScatterND`` indices count from the end (``-1`` is the last
    element), and exporters write them for ``x[:, -1]`` and similar. The published CANN pages
    of Gather and ScatterND say negative index values are not supported.

    ## Example
    ``Gather(x[1, 8, 16], indices=-1, axis=1)``: the last step of a sequence, as PyTorch exports
    ``x[:, -1]``.

    ## Fix
    ``atccheck fix`` (non-negative-indices, safe) adds the axis size to each negative index
    when that size is static: the same elements, counted from the start.

    ## Facts
    ``op_tables/op_facts.json`` kind ``negative-indices-rejected``: the shape constraints of
    the published Gather (9.0) and ScatterND pages (profiles 8.0 and 9.0; other profiles get
    an info, the pages do not speak for them).
    """

    code = "AC308"
    name = "negative-indices"
    severity = Severity.ERROR
    fact_kind = KIND  # runs on the ops these facts name

    def check_node(self, node: NodeContext) -> Iterable[Finding]:
        here, facts = page_facts(node, KIND) or ((), ())
        outputs = [o for o in node.node.output if o]
        if outputs and all(node.ctx.is_foldable(o) for o in outputs):
            return  # computed at compile time (--oo_constant_folding defaults to true), not by the kernel
        for fact in here or facts:
            label = (fact.params or {}).get("input", "indices")
            value = node.ctx.const_value(node.input_name(int((fact.params or {}).get("index", 1))))
            if value is None or value.size == 0 or not (value < 0).any():
                continue
            count, lowest = int((value < 0).sum()), int(value.min())
            yield page_finding(
                self, node, KIND, fact, bool(here),
                f"{node.op_type} input '{label}' holds {count} negative value(s) (lowest {lowest}): ONNX counts "
                "them from the end; the published page says negative index values are not supported",
                Severity(fact.severity), "count the indices from the start",
                {"input": label, "negatives": count, "lowest": lowest},
            )
