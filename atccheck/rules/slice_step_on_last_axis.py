"""slice-step-on-last-axis: a Slice that strides along the last axis, which the published page rules out."""

from __future__ import annotations

from collections.abc import Iterable

from atccheck.context import NodeContext
from atccheck.findings import Finding, Severity
from atccheck.rules._attrs import page_facts, page_finding
from atccheck.rules.base import Rule, register

KIND = "last-axis-step-one"


@register
class SliceStepOnLastAxis(Rule):
    """A Slice with a step other than 1 on its input's last axis (``x[..., ::2]``), which the Slice page rules out.

    ## What it does
    Fires on a node named by a ``last-axis-step-one`` fact (Slice, opset 10 on, where
    ``steps`` is an input) when ``steps`` and ``axes`` are constants (``axes`` absent means
    the first axes in order), the data rank is known, and the entry for the last axis is not
    1. Steps computed at run time are not judged, nor is a Slice whose output folds to a
    constant at build time (``--oo_constant_folding`` defaults to true).

    ## Why
    The published CANN Slice page says the step on the last axis must be 1. Strided slices
    along the width are common: YOLOv5's Focus layer takes ``x[..., ::2, ::2]`` four times.

    ## Example
    ``Slice(x[1, 3, 640, 640], starts=[0, 0], ends=[max, max], axes=[2, 3], steps=[2, 2])``:
    step 2 on axis 3, the last one.

    ## Fix
    ``atccheck fix`` (unstride-last-axis-slice, safe) keeps the other axes' steps, cuts the
    last axis to a contiguous range, reshapes it to ``[..., count, step]`` and takes column 0:
    the same elements, moved without arithmetic. It needs the last axis's size to be static
    and a positive step. A negative step (``torch.flip``; ``data["reverses"]``) is answered by
    reverse-last-axis (safe): a Gather of the indices the step takes, on a static last axis.

    ## Facts
    ``op_tables/op_facts.json`` kind ``last-axis-step-one``: the shape constraint of the
    published Slice page (8.0/8.5; profiles 8.0 and 9.0; other profiles get an info, the page
    does not speak for them).
    """

    code = "AC309"
    name = "slice-step-on-last-axis"
    severity = Severity.ERROR
    fact_kind = KIND  # runs on the ops these facts name

    def check_node(self, node: NodeContext) -> Iterable[Finding]:
        found = page_facts(node, KIND)
        if found is None or any(node.ctx.is_foldable(o) for o in node.node.output if o):
            return
        here, facts = found
        info = node.input_info(0)
        rank = info.rank if info is not None else None
        for fact in here or facts:
            params = fact.params or {}
            steps = node.ctx.const_value(node.input_name(int(params.get("index", 4))))
            if steps is None or not rank:  # rank unknown, or a scalar (which no Slice takes)
                continue
            axes_name = node.input_name(int(params.get("axes_index", 3)))
            axes = node.ctx.const_value(axes_name) if axes_name else None
            if axes_name and axes is None:
                continue  # axes computed at run time: the last axis's entry is unknown
            listed = [int(a) for a in axes.reshape(-1)] if axes is not None else list(range(steps.size))
            for axis, step in zip(listed, (int(s) for s in steps.reshape(-1))):
                if axis % rank == rank - 1 and step != 1:
                    yield page_finding(
                        self, node, KIND, fact, bool(here),
                        f"{node.op_type} steps by {step} along the last axis (axis {axis} of a rank-{rank} input); "
                        f"the published page says the {fact.note}",
                        Severity(fact.severity), "slice the last axis with step 1",
                        {"axis": axis, "step": step, "rank": rank, "reverses": step < 0},
                    )
