"""Run the rules over a model: load once, infer shapes once, walk the graph once per target."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from atccheck.context import CheckContext, NodeContext
from atccheck.domains import STANDARD_DOMAINS
from atccheck.findings import Finding, Location
from atccheck.fixlinks import with_fix
from atccheck.model.folding import fold_shapes
from atccheck.model.graph import GraphIndex
from atccheck.model.input_shape import parse_input_shapes, validate_input_shapes
from atccheck.model.loading import LoadedModel, load_model
from atccheck.model.shapes import ShapeIndex, infer_shapes
from atccheck.report import Report, ShapeSummary, SymbolicDim
from atccheck.rules import Rule, all_rules, rule_matches
from atccheck.rules.internal_error import InternalError
from atccheck.rules.malformed_attribute import MalformedAttribute
from atccheck.tables import Tables, tables
from atccheck.target import Target

if TYPE_CHECKING:  # pragma: no cover
    import onnx

InputShapes = Mapping[str, Sequence[int]]


@dataclass
class Prepared:
    """A loaded model with its shapes inferred: everything target-independent."""

    loaded: LoadedModel
    shapes: ShapeIndex
    graph: GraphIndex
    input_shapes: dict[str, tuple[int, ...]] = field(default_factory=dict)


def as_input_shapes(value: str | InputShapes | None) -> dict[str, tuple[int, ...]]:
    if value is None:
        return {}
    if isinstance(value, str):
        return parse_input_shapes(value)
    return {name: tuple(int(d) for d in dims) for name, dims in value.items()}


def prepare(
    source: "str | os.PathLike[str] | onnx.ModelProto | LoadedModel",
    input_shapes: str | InputShapes | None = None,
) -> Prepared:
    loaded = source if isinstance(source, LoadedModel) else load_model(source, weights=False)
    shapes_override = as_input_shapes(input_shapes)
    validate_input_shapes(loaded.model, shapes_override)
    shapes = infer_shapes(loaded.model, shapes_override)
    if shapes.contradiction:
        from atccheck.errors import UsageError

        raise UsageError(shapes.contradiction)
    graph = GraphIndex(loaded.model)
    # Judge the graph ATC compiles: values its constant folding computes, and the shapes they fix.
    shapes = fold_shapes(loaded.model, shapes, shapes_override, graph).shapes or shapes
    return Prepared(loaded=loaded, shapes=shapes, graph=graph, input_shapes=shapes_override)


def rule_selected(rule: type[Rule], select: Iterable[str] | None, ignore: Iterable[str] | None) -> bool:
    """Select/ignore by code or name; a prefix ('AC1', 'dynamic-') matches every rule it starts."""

    def matches(patterns: Iterable[str]) -> bool:
        return any(rule_matches(p, rule.code, rule.name) for p in patterns)

    if select and not matches(select):
        return False
    return not (ignore and matches(ignore))




def _internal_error(rule: type[Rule], where: Location, exc: Exception) -> Finding:
    """A rule that could not run is an error: a check that skipped part of the model must not pass."""
    place = f"node '{where.node}'" if where.node else "the model"
    return InternalError.make_finding(
        where,
        f"rule {rule.name} could not check {place}: {type(exc).__name__}: {_one_line(exc)}",
        hint="report this model to the atccheck maintainers; the other rules ran",
        source="atccheck",
        data={"rule": rule.name, "exception": type(exc).__name__},
    )


def _malformed(node: NodeContext) -> Finding:
    """Attributes whose type is not the one the ONNX schema declares: the model is not valid ONNX."""
    problems = "; ".join(f"'{name}' is {got} where the ONNX schema of {node.op_type} (opset {node.opset}) "
                         f"declares {want}" for name, got, want in node.malformed_attrs)
    return MalformedAttribute.make_finding(
        node.location,
        f"attribute {problems}; onnx.checker rejects the model, and what ATC's parser makes of it is "
        "unknown, so the rules checked the node without it",
        hint="re-export the model or fix the attribute's type",
        source="onnx operator schemas (onnx.defs)",
        data={"attributes": [name for name, _, _ in node.malformed_attrs]},
    )


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= 300 else text[:297] + "..."


def run_rules(ctx: CheckContext, rules: Sequence[type[Rule]]) -> list[Finding]:
    instances = [rule() for rule in rules]
    findings: list[Finding] = []
    for rule in instances:
        try:
            findings.extend(rule.check_model(ctx))
        except Exception as exc:  # a broken rule must not hide the others
            findings.append(_internal_error(type(rule), Location(), exc))
    dispatch = [(rule, rule.node_ops(ctx.tables)) for rule in instances]
    every_node = [rule for rule, ops in dispatch if ops is None]
    by_op: dict[str, list[Rule]] = {}
    for rule, ops in dispatch:
        for op in ops or ():
            by_op.setdefault(op, []).append(rule)
    for gnode in ctx.graph.nodes:
        node = NodeContext(gnode, ctx)
        chosen = list(every_node)
        if gnode.domain in STANDARD_DOMAINS:
            chosen += by_op.get(gnode.op_type, [])
            if gnode.node.attribute and node.malformed_attrs:
                findings.append(_malformed(node))
        for rule in chosen:
            try:
                findings.extend(rule.check_node(node))
            except Exception as exc:
                findings.append(_internal_error(type(rule), node.location, exc))
    return [with_fix(f) for f in findings]  # the pass that answers each finding (atccheck.fixlinks)


def shape_summary(prepared: Prepared) -> ShapeSummary:
    symbolic = []
    for name in prepared.graph.real_inputs:
        info = prepared.shapes.get(name)
        if info is None or info.shape is None:
            continue
        for axis, dim in enumerate(info.shape):
            if not isinstance(dim, int):
                symbolic.append(SymbolicDim(name, axis, dim))
    unknown = []
    for gnode in prepared.graph.nodes:
        for out in gnode.node.output:
            if not out:
                continue
            info = prepared.shapes.get(out)
            if info is None or not info.is_static:
                unknown.append(out)
    return ShapeSummary(
        symbolic_inputs=tuple(symbolic),
        unknown_values=len(unknown),
        first_unknown=tuple(unknown[:5]),
        inference_error=prepared.shapes.error,
    )


def check_prepared(
    prepared: Prepared,
    target: Target,
    *,
    tbl: Tables | None = None,
    select: Iterable[str] | None = None,
    ignore: Iterable[str] | None = None,
    options: Mapping[str, Any] | None = None,
) -> Report:
    tbl = tbl or tables()
    ctx = CheckContext(
        prepared.loaded,
        prepared.shapes,
        target,
        tbl,
        input_shapes=prepared.input_shapes,
        options=options,
        graph=prepared.graph,
    )
    select = list(select or ())
    ignore = list(ignore or ())
    rules = [r for r in all_rules() if rule_selected(r, select, ignore)]
    findings = run_rules(ctx, rules)
    report = Report(
        model=prepared.loaded.display_name,
        target=target,
        findings=findings,
        shapes=shape_summary(prepared),
        node_count=len(prepared.graph.nodes),
        opset_imports=dict(ctx.opset_imports),
        input_shapes=dict(prepared.input_shapes),
        context=ctx,
    )
    from atccheck.atc.command import command_for_report

    report.atc_command = command_for_report(report)
    return report
