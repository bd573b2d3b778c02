"""fusion-pass-failure: a built-in graph fusion pass that fails on this node and stops the build."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from atccheck.context import NodeContext
from atccheck.domains import is_standard
from atccheck.findings import Finding, Severity
from atccheck.rules._attrs import ascend_ops, composite_members, formal_input_names, reaches_plugin
from atccheck.rules.base import Rule, register
from atccheck.tables import OpFact

KIND = "fusion-pass"


@register
class FusionPassFailure(Rule):
    """A built-in graph fusion pass that fails on this node, which stops the ATC build.

    ## What it does
    For the Ascend op the node becomes, reads the ``fusion-pass`` facts of the target's CANN
    profile and the cases in which the pass itself fails (``fails_when``), and reports the
    node where one holds at the given input shapes: an input the pass reads as a constant
    that is not one (``not-constant``: NonMaxSuppression's ``max_output_boxes_per_class``,
    AffineGrid's ``size`` in the 2022 tree), or an input the pass sizes a constant from whose
    element count, taken from its dims as GE holds them (-1 for each unknown dim, -2 for an
    unknown rank), is negative (``negative-element-count``: NonMaxSuppression's ``scores``
    with one unknown dim). Where such an input has unknown dims but their product is not
    negative (two unknown dims), the source does not say what follows: an info. Nodes
    computed at compile time (constant folding) and nodes no plugin parses are not judged.

    ## Why
    GE runs its built-in fusion passes on every graph before it chooses the engines; a pass
    that returns a failure stops the build: "Failed to run graph fusion pass
    [NonMaxSuppressionV6Fusion]" (E20007), with the pass's own line in the log ("The shape of
    score cannot be negative.", "Get constValue failed of [max_output_size]").

    ## Example
    ``NonMaxSuppression`` whose ``scores`` is ``[-1, 80, 1000]`` (``--input-shape
    "scores:-1,80,1000"``, the dynamic-shape route on Ascend310P3): NonMaxSuppressionV6Fusion
    sizes its index constant from those dims, finds a negative count, and ATC stops with E20007.

    ## Fix
    Give the input static dims (``--input-shape`` with sizes, or a gear option: each gear is a
    static graph), or make the input a constant (an initializer, or values computed from
    constants, which ``atccheck fix`` folds).

    ## Facts
    ``op_tables/op_facts.json`` kind ``fusion-pass``, ``params.fails_when`` (from
    ``op_tables/curated/fusion_passes.json``): the 2022 canndev
    ``ops/built-in/fusion_pass/graph_fusion/ai_core/non_max_suppression_fusion_pass.cc`` lines
    69-76, 116-120, 173-177 and 187-197 and ``affine_grid_fussion_pass.cc`` lines 336-341 and
    457-460 (dengguojie/vue-element-admin@7d77ce32d, a mirror of Huawei canndev); an ATC log
    of 2024 showing E20007 from NonMaxSuppressionV6Fusion in a later release
    (hiascend forum thread 0280167478447198047). ``atc_errors.json`` E20007.
    """

    code = "AC314"
    name = "fusion-pass-failure"
    severity = Severity.ERROR
    fact_kind = KIND

    def check_node(self, node: NodeContext) -> Iterable[Finding]:
        ctx = node.ctx
        if not is_standard(node.domain) or not reaches_plugin(node):
            return
        outputs = [o for o in node.node.output if o]
        if outputs and all(ctx.is_foldable(o) for o in outputs):
            return  # computed at compile time: no fusion pass sees it
        ops = set(ascend_ops(node) or composite_members(node))
        for fact in ctx.tables.op_facts_for(KIND, node.op_type, ctx.target.profile.id):
            params = fact.params or {}
            if params.get("ascend_op") not in ops:
                continue
            for case in params.get("fails_when") or ():
                finding = self._case(node, fact, params, case)
                if finding is not None:
                    yield finding
                    break  # the pass stops at its first failure

    def _case(self, node: NodeContext, fact: OpFact, params: Mapping[str, Any],
              case: Mapping[str, Any]) -> Finding | None:
        ctx = node.ctx
        index = int(case["input"])
        name = node.input_name(index)
        if not name:
            return None  # an optional input the node leaves out: the pass does not read it
        names = formal_input_names(node.op_type, node.opset)
        label = f"{node.op_type} input {index} ({names[index] if index < len(names) else name})"
        pass_name, ascend_op = params["pass"], params["ascend_op"]
        what = (f"CANN {ctx.target.profile.id}'s graph fusion pass {pass_name} (which turns {ascend_op} into "
                f"{'+'.join(params.get('into', ()))})")
        code = case.get("atc_error")
        stops = f"ATC stops with {code}" if code else "the pass fails and ATC stops"
        data = {"fusion_pass": pass_name, "ascend_op": ascend_op, "input": index, "case": case["case"],
                "log": case["log"], "atc_error": code}
        source = f"op_tables/op_facts.json {KIND} {pass_name}: {case['source']}"
        if case["case"] == "not-constant":
            if ctx.is_foldable(name):
                return None
            return self.finding(
                node,
                f"{label} is not a constant: {what} reads it as one and fails ('{case['log']}'): {stops}",
                hint=f"make input {index} a constant (an initializer, or values computed from constants)",
                source=source, atc_error=code, data=data,
            )
        info = ctx.info(name)
        if info is not None and info.is_static:
            return None
        dims = ge_dims(info.shape if info is not None else None)
        count = math.prod(dims)
        shown = "[" + ", ".join(map(str, dims)) + "]"
        if count < 0:
            return self.finding(
                node,
                f"{label} has unknown dims at these input shapes, which GE holds as {shown}: {what} sizes a "
                f"constant from them, finds a negative element count and fails ('{case['log']}'): {stops}",
                hint=f"give input {index} static dims (--input-shape with sizes, or a gear option)",
                source=source, atc_error=code, data={**data, "dims": dims, "element_count": count},
            )
        return self.finding(
            node,
            f"{label} has unknown dims at these input shapes, which GE holds as {shown}: {what} sizes a constant "
            f"from them; their product is not negative, so the check that fails ('{case['log']}') passes, and what "
            f"the pass builds for unknown dims is not known",
            hint=f"give input {index} static dims (--input-shape with sizes, or a gear option)",
            source=source, severity=Severity.INFO, data={**data, "dims": dims, "element_count": count},
        )


def ge_dims(shape: tuple[Any, ...] | None) -> list[int]:
    """A shape as GE holds it: -1 for an unknown dim, [-2] for an unknown rank."""
    if shape is None:
        return [-2]
    return [d if isinstance(d, int) and d >= 0 else -1 for d in shape]
