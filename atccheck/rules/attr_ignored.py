"""attr-ignored: an attribute the parser plugin drops or reinterprets; the converted model computes something else."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from atccheck.context import NodeContext
from atccheck.findings import Finding, Severity
from atccheck.rules._attrs import MISSING, effective_attr, reaches_plugin, same_value, show, source_kind
from atccheck.rules.base import Rule, register
from atccheck.tables import OpFact


@register
class AttrIgnored(Rule):
    """An attribute the CANN parser plugin ignores or reinterprets: the model converts, the numbers change.

    ## What it does
    For each ``ignored-attr`` fact of ``op_tables/op_facts.json`` that holds in the CANN
    profile, compares the node's attribute (its ONNX default when absent) with the values
    that behave as ONNX defines them. Facts: Gemm ``alpha``/``beta`` not 1 (never read by
    the 2022 plugins; not supported per the 9.0.0 commercial page for profile 8.0; the 9.x
    source applies them). Resize ``nearest_mode`` (never read; the page supports only
    ``round_prefer_ceil``; the ONNX default is ``round_prefer_floor``; with
    ``coordinate_transformation_mode=asymmetric`` and ``nearest_mode=floor``, what every
    PyTorch nearest upsample exports, it is an info: the plugin passes asymmetric as
    align_corners=false, half_pixel_centers=false, and what ResizeNearestNeighborV2 computes
    with both flags false is not in the reference facts) and a
    ``coordinate_transformation_mode`` other than align_corners, half_pixel,
    pytorch_half_pixel and asymmetric, both for ``mode=nearest``; the opset-18 Resize
    attributes ``antialias``, ``axes`` and ``keep_aspect_ratio_policy`` (logged as
    unsupported). AveragePool ``auto_pad=SAME_LOWER`` (treated as SAME).

    ## Why
    ATC converts the model without an error, but the Ascend op computes with different
    coefficients, rounding, sampling coordinates or padding, so outputs differ from
    onnxruntime.

    ## Example
    ``Gemm`` with ``alpha=0.5`` checked against ``--cann 6.0``: the product is not scaled.

    ## Fix
    Export with the attribute at a value the plugin honours, or rewrite the node by hand
    (for Gemm: a Mul after the Gemm; for Resize: the matching coordinate mode).

    ## Facts
    ``op_tables/op_facts.json`` kind ``ignored-attr``: the Gemm, Resize and AveragePool
    plugins of the 2022 canndev tree and of hicann/ops-nn (notes/cann_source.md section 6),
    and the published Gemm and Resize pages.
    """

    code = "AC303"
    name = "attr-ignored"
    severity = Severity.WARNING
    fact_kind = "ignored-attr"  # dispatch: the ops op_facts.json ignored-attr facts name

    def check_node(self, node: NodeContext) -> Iterable[Finding]:
        if not reaches_plugin(node):
            return
        ctx = node.ctx
        for fact in ctx.tables.op_facts_for("ignored-attr", node.op_type, ctx.target.profile.id):
            if not self._condition_holds(node, fact):
                continue
            value, present = effective_attr(node, fact.attr or "")
            if fact.absent:
                if present:
                    yield self._report(node, fact, value, True, "the attribute left out")
                continue
            if value is MISSING:
                continue
            honoured = list(fact.values or ())
            if not any(same_value(value, v) for v in honoured):
                yield self._report(node, fact, value, present, " or ".join(map(str, honoured)),
                                   unverified=self._unverified(node, fact))

    @staticmethod
    def _condition_holds(node: NodeContext, fact: OpFact) -> bool:
        if not fact.when:
            return True
        value, _ = effective_attr(node, fact.when["attr"])
        return any(same_value(value, v) for v in fact.when["values"])

    @staticmethod
    def _unverified(node: NodeContext, fact: OpFact) -> str | None:
        """The fact's note when the node's attributes are a combination the facts cannot judge."""
        params = fact.params or {}
        for combo in params.get("unverified_when") or ():
            if all(same_value(effective_attr(node, attr)[0], want) for attr, want in combo.items()):
                return params.get("unverified_note")
        return None

    def _report(self, node: NodeContext, fact: OpFact, value: Any, present: bool, honoured: str,
                unverified: str | None = None) -> Finding:
        profile = node.ctx.target.profile.id
        shown = show(value) if present else f"{show(value)} (ONNX default)"
        basis = source_kind(fact.source)
        when = ""
        if fact.when:
            when = f" with {fact.when['attr']}={'/'.join(map(str, fact.when['values']))}"
        if unverified:
            message = (f"{node.op_type} {fact.attr}={shown}{when}: {fact.note} in CANN {profile}; {unverified}, so "
                       f"atccheck cannot tell whether results differ from ONNX [{basis}]")
        else:
            message = (f"{node.op_type} {fact.attr}={shown}{when}: {fact.note} in CANN {profile}; the model converts "
                       f"but its results differ from ONNX unless {fact.attr} is {honoured} [{basis}]")
        return self.finding(
            node,
            message,
            hint=f"export {node.op_type} with {fact.attr} {honoured} so onnxruntime and Ascend compute the same, "
            f"or verify the converted model's accuracy",
            source=f"op_tables/op_facts.json ignored-attr; {fact.source}",
            severity=Severity.INFO if unverified else Severity(fact.severity),
            data={"unverified": bool(unverified), "attr": fact.attr, "value": value if isinstance(value, (int, float, str, list)) else str(value),
                  "default_used": not present,
                  "honoured": list(fact.values) if fact.values is not None else None, "profile": profile,
                  "basis": basis},
        )
