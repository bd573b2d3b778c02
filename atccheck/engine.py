"""Run the rules over a model: load once, infer shapes once, walk the graph once per target."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from atccheck.context import CheckContext, NodeContext
from atccheck.findings import Finding, FixSuggestion, Location
from atccheck.model.folding import fold_shapes
from atccheck.model.graph import GraphIndex
from atccheck.model.loading import LoadedModel, load_model
from atccheck.model.shapes import (
    ShapeIndex,
    infer_shapes,
    parse_input_shapes,
    validate_input_shapes,
)
from atccheck.report import Report, ShapeSummary, SymbolicDim
from atccheck.rules import Rule, all_rules, rule_matches
from atccheck.rules.internal_error import InternalError
from atccheck.rules.malformed_attribute import MalformedAttribute
from atccheck.tables import AI_ONNX, Tables, tables
from atccheck.target import DEFAULT_PRECISION_MODE, DEFAULT_PROFILE, Target, resolve_target

if TYPE_CHECKING:  # pragma: no cover
    import onnx

    from atccheck.numerics import NumericsRequest

InputShapes = Mapping[str, Sequence[int]]
STANDARD_DOMAINS = ("", AI_ONNX)


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
    return Finding(
        code=InternalError.code,
        name=InternalError.name,
        severity=InternalError.severity,
        message=f"rule {rule.name} could not check {place}: {type(exc).__name__}: {_one_line(exc)}",
        location=where,
        hint="report this model to the atccheck maintainers; the other rules ran",
        fix=FixSuggestion.manual(),
        source="atccheck",
        data={"rule": rule.name, "exception": type(exc).__name__},
    )


def _malformed(node: NodeContext) -> Finding:
    """Attributes whose type is not the one the ONNX schema declares: the model is not valid ONNX."""
    problems = "; ".join(f"'{name}' is {got} where the ONNX schema of {node.op_type} (opset {node.opset}) "
                         f"declares {want}" for name, got, want in node.malformed_attrs)
    return Finding(
        code=MalformedAttribute.code,
        name=MalformedAttribute.name,
        severity=MalformedAttribute.severity,
        message=f"attribute {problems}; onnx.checker rejects the model, and what ATC's parser makes of it is "
                "unknown, so the rules checked the node without it",
        location=node.location,
        hint="re-export the model or fix the attribute's type",
        fix=FixSuggestion.manual(),
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
    return findings


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
    request = ctx.options.get("numerics")
    if request is not None:  # the precision preflight: weights, onnxruntime; the numerics rules read it
        from atccheck.numerics import run_numerics

        ctx.numerics = run_numerics(ctx, request)
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
        numerics=ctx.numerics,
    )
    from atccheck.atc.command import command_for_report

    report.atc_command = command_for_report(report)
    return report


def check(
    model: "str | os.PathLike[str] | onnx.ModelProto",
    soc: str,
    cann: str = DEFAULT_PROFILE,
    input_shapes: str | InputShapes | None = None,
    precision_mode: str = DEFAULT_PRECISION_MODE,
    *,
    select: Iterable[str] | None = None,
    ignore: Iterable[str] | None = None,
    device_memory: int | None = None,
    dynamic_batch: "str | Sequence[int] | None" = None,
    dynamic_image_size: "str | Sequence[Sequence[int]] | None" = None,
    dynamic_dims: "str | Sequence[Sequence[int]] | None" = None,
    numerics: "bool | NumericsRequest" = False,
) -> Report:
    """Check a model (path or ModelProto) for one chip; never reads external weights.

    ``numerics`` (True, or a :class:`atccheck.numerics.NumericsRequest` naming an ``.npz`` of
    inputs) adds the precision preflight: it reads the weights, runs onnxruntime on the model as
    the precision mode rounds it, and lets float16-overflow and float16-precision-loss report.

    A gear option (at most one, the values as ``atc-cmd`` takes them) checks the model as ATC
    builds it: one static graph per gear, -1 in ``input_shapes`` marking the gear axes.

    Raises :class:`atccheck.errors.InputError` for an unreadable model and
    :class:`atccheck.errors.UsageError` for option values atccheck cannot use.
    """
    from atccheck.atc.command import resolve_gears
    from atccheck.gears import check_geared, prepare_gears

    target = resolve_target(soc, cann, precision_mode)
    options: dict[str, Any] | None = {"device_memory": device_memory} if device_memory else None
    gears = resolve_gears(dynamic_batch, dynamic_image_size, dynamic_dims)
    if numerics:
        from atccheck.errors import UsageError
        from atccheck.numerics import NumericsRequest

        if gears is not None:
            raise UsageError("--numerics simulates one static model: give --input-shape instead of a gear option")
        options = {**(options or {}), "numerics": numerics if isinstance(numerics, NumericsRequest) else NumericsRequest()}
    if gears is not None:
        return check_geared(prepare_gears(model, gears, input_shapes), target, select=select, ignore=ignore,
                            options=options)
    prepared = prepare(model, input_shapes)
    return check_prepared(prepared, target, select=select, ignore=ignore, options=options)
