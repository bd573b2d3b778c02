"""attr-out-of-range: an attribute value the CANN profile's pages or plugins do not accept."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from atccheck.context import NodeContext
from atccheck.findings import Finding, Severity
from atccheck.rules._attrs import (
    MISSING,
    effective_attr,
    input_rank,
    is_default,
    reaches_plugin,
    same_value,
    show,
    source_kind,
)
from atccheck.rules.base import Rule, register
from atccheck.tables import AttrLimit, Tables


@register
class AttrOutOfRange(Rule):
    """An attribute value is outside what the published page or the parser plugin accepts.

    ## What it does
    Checks every attribute limit of ``op_tables/attr_limits.json`` that holds in the CANN
    profile (superseded page facts excluded): enums, ranges (on the spatial values where the
    limit is about H and W), attributes that must keep their ONNX default, required
    attributes, odd/even values and list lengths. A limit tied to a rank applies only when
    input 0 has that rank. An absent attribute is checked with its ONNX default where the
    limit is about the value (Resize ``mode`` defaults to ``nearest``). An Einsum equation is
    compared as a pattern: letters renamed in order of first use.

    ## Why
    The plugins fail on values they do not handle (E11010 'Unsupported interpolation mode',
    'only support storage_order=0'), and the published operator pages list the values ATC
    supports; a model outside them is rejected or, where the page says so, falls back to
    AI CPU.

    ## Example
    ``MaxPool`` with ``storage_order=1``: the plugin fails ('only support storage_order=0').
    ``Einsum`` with ``bij,bjk->bik`` is not one of the page's equations (fix:
    decompose-einsum).

    ## Fix
    Change the attribute at export time. ``atccheck fix`` (decompose-einsum) rewrites
    Einsum into MatMul/Transpose/Reshape; other attributes need a manual change.

    ## Facts
    ``op_tables/attr_limits.json``: the published 9.0 operator pages (profiles 8.0 and 9.0)
    and plugin facts of the 2022 canndev and 2026 hicann sources, each entry with its source
    and, for superseded page facts, the reason the source wins.
    """

    code = "AC302"
    name = "attr-out-of-range"
    severity = Severity.ERROR
    op_types = None  # see node_ops: the ops attr_limits.json names

    def node_ops(self, tables: Tables) -> frozenset[str]:
        return tables.ops_with_attr_limits

    def check_node(self, node: NodeContext) -> Iterable[Finding]:
        if not reaches_plugin(node):
            return
        ctx = node.ctx
        limits = ctx.tables.attr_limits_for(node.op_type, ctx.target.profile.id)
        rank = input_rank(node)
        reported: set[str] = set()
        # Source facts first: when a page and a plugin limit the same attribute, report once.
        for limit in sorted(limits, key=lambda lim: (lim.source.startswith("http"), lim.attr)):
            if limit.effect == "ignored" or limit.attr in reported:
                continue
            if limit.when_rank is not None and rank != limit.when_rank:
                continue
            problem = self._violation(node, limit, rank)
            if problem is None:
                continue
            reported.add(limit.attr)
            yield self._report(node, limit, *problem)

    # ---------------------------------------------------------------- checks

    def _violation(self, node: NodeContext, limit: AttrLimit, rank: int | None) -> tuple[Any, str] | None:
        """(observed value, what is allowed) when the node breaks the limit, else None."""
        value, present = effective_attr(node, limit.attr)
        kind = limit.kind
        if kind == "required":
            return ("absent", "the attribute is required") if not present else None
        if value is MISSING:
            return None
        if kind == "unsupported":
            if present and not is_default(node, limit.attr, value):
                return value, "only the ONNX default (the attribute is not supported)"
            return None
        if kind == "enum":
            allowed = list(limit.values or ())
            if node.op_type == "Einsum" and limit.attr == "equation" and isinstance(value, str):
                shown = value
                value = _einsum_pattern(value)
                if value not in allowed:
                    return shown, f"one of {len(allowed)} equation patterns (letters renamed in order of use: {value})"
                return None
            if isinstance(value, list):
                bad = [v for v in value if not any(same_value(v, a) for a in allowed)]
                return (value, f"each value in {allowed}") if bad else None
            return (value, f"one of {allowed}") if not any(same_value(value, a) for a in allowed) else None
        if kind == "range":
            values = value if isinstance(value, list) else [value]
            if limit.axes == "spatial" and limit.attr != "pads":
                kernel = node.attrs.get("kernel_shape")
                count = len(kernel) if isinstance(kernel, list) and kernel else 2
                values = values[-count:]
            low_bad = [v for v in values if isinstance(v, (int, float)) and limit.min is not None and v < limit.min]
            high_bad = [v for v in values if isinstance(v, (int, float)) and limit.max is not None and v > limit.max]
            bad = low_bad + high_bad
            if bad:
                low = "-inf" if limit.min is None else _num(limit.min)
                high = "inf" if limit.max is None else _num(limit.max)
                where = " on the spatial axes" if limit.axes == "spatial" else ""
                return value, f"values in [{low}, {high}]{where}"
            return None
        if kind == "parity":
            want = (limit.values or ("odd",))[0]
            values = value if isinstance(value, list) else [value]
            odd = want == "odd"
            bad = [v for v in values if isinstance(v, int) and (v % 2 == 1) != odd]
            return (value, f"{want} values") if bad else None
        if kind == "length":
            if not present or not isinstance(value, list):
                return None
            spec = node.ctx.tables.op_specs.get(node.op_type)
            item = spec.input(0) if spec else None
            if item is not None and item.ranks and rank not in item.ranks:
                return None  # the page states the length for the ranks it documents
            allowed = list(limit.values or ())
            return (value, f"a list of length {' or '.join(map(str, allowed))}") if len(value) not in allowed else None
        return None

    def _report(self, node: NodeContext, limit: AttrLimit, value: Any, allowed: str) -> Finding:
        ctx = node.ctx
        profile = ctx.target.profile.id
        basis = source_kind(limit.source)
        severity = Severity(limit.severity)
        consequence = {
            "rejected": "ATC rejects it",
            "ai-cpu-fallback": "it runs on AI CPU instead of AI Core",
            "slow-path": "it compiles through a slow path",
        }.get(limit.effect, limit.effect)
        if limit.atc_error:
            consequence += f" ({limit.atc_error})"
        note = f" ({limit.note})" if limit.note else ""
        return self.finding(
            node,
            f"{node.op_type} {limit.attr}={_show(value)}: CANN {profile} accepts {allowed}{note}; {consequence} "
            f"[{basis}]",
            hint=f"export {node.op_type} with {limit.attr} set to a supported value",
            fix_hint="run 'atccheck fix' ({pass_name})",
            source=f"op_tables/attr_limits.json; {limit.source}",
            severity=severity,
            atc_error=limit.atc_error,
            data={
                "attr": limit.attr,
                "value": value if isinstance(value, (int, float, str, list)) else str(value),
                "kind": limit.kind,
                "allowed": list(limit.values) if limit.values is not None else None,
                "min": limit.min,
                "max": limit.max,
                "profile": profile,
                "basis": basis,
                "effect": limit.effect,
            },
        )


def _einsum_pattern(equation: str) -> str:
    """Letters renamed a, b, c, ... in order of first use; spaces dropped."""
    names: dict[str, str] = {}
    out = []
    for ch in equation.replace(" ", ""):
        if ch.isalpha():
            if ch not in names:
                names[ch] = chr(ord("a") + len(names))
            out.append(names[ch])
        else:
            out.append(ch)
    return "".join(out)


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _show(value: Any) -> str:
    return f"'{value}'" if isinstance(value, str) and value != "absent" else show(value)
