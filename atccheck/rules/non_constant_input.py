"""non-constant-input: an input the published operator list requires to be constant is computed."""

from __future__ import annotations

from collections.abc import Iterable

from atccheck.context import NodeContext
from atccheck.findings import Finding, Severity
from atccheck.model.schema import input_names
from atccheck.rules.base import Rule, register
from atccheck.tables import SpecInput, tables

FOLD_OPTION = "--oo_constant_folding"


@register
class NonConstantInput(Rule):
    """An input that Huawei's operator list requires to be a constant is computed in the graph.

    ## What it does
    For every op whose page in the published ONNX operator list marks inputs as constant
    (``op_tables/op_spec.json`` ``const_required``: Resize ``scales``/``sizes``, Expand
    ``shape``, NonMaxSuppression ``max_output_boxes_per_class``, ``iou_threshold`` and
    ``score_threshold``), it checks that the input is an initializer or a Constant output.
    It is an error when the value depends on run-time data, and a warning when it is
    computed from constants and static shapes only (foldable, but not folded yet). Inputs
    are matched by name against the ONNX schema of the node's opset, so Resize-10 (whose
    ``scales`` is input 1) is read right.

    ## Why
    The ATC plugins and kernels of these ops read the value at build time (the Ascend310
    ResizeNearestNeighborV2 kernel rejects a non-constant ``size``). A value computed from
    graph inputs cannot be read then. A foldable value is usually folded by ATC's constant
    folding (``--oo_constant_folding``, on by default), but the page asks for a constant
    and nothing guarantees that folding reaches it.

    ## Example
    ``Resize`` whose ``sizes`` input is ``Concat(Slice(Shape(x)), [64, 64])`` with ``x``
    static: a warning; with ``sizes`` read from a graph input: an error.

    ## Fix
    Foldable values: ``atccheck fix`` (``simplify``) folds them into initializers. Values
    that depend on run-time data need a model change (fixed scales, or export with
    constant sizes).

    ## Facts
    ``op_tables/op_spec.json`` from the published "Supported ONNX Operators" pages (CANN
    9.0; constant-input rules restated in shared/reference/notes/onnx_op_spec.md section 3);
    ResizeNearestNeighborV2's constant ``size``: shared/reference/notes/cann_source.md
    section 7; ``--oo_constant_folding``: ``op_tables/atc_options.json``.
    """

    code = "AC203"
    name = "non-constant-input"
    severity = Severity.ERROR
    op_types = frozenset(
        op for op, spec in tables().op_specs.items() if any(item.const_required for item in spec.inputs)
    )

    def check_node(self, node: NodeContext) -> Iterable[Finding]:
        ctx = node.ctx
        spec = ctx.tables.op_specs.get(node.op_type)
        if spec is None:
            return
        names = input_names(node.op_type, node.opset, node.domain)
        for item in spec.inputs:
            if not item.const_required:
                continue
            index = _index_of(item, names)
            if index is None:
                continue
            value = node.input_name(index)
            if not value or ctx.is_constant(value):
                continue
            yield self._finding(node, item, index, value, spec.source)

    def _finding(self, node: NodeContext, item: SpecInput, index: int, value: str, page: str) -> Finding:
        ctx = node.ctx
        producer = ctx.graph.producer.get(value)
        origin = f"computed by {producer.op_type}" if producer is not None else "a graph input"
        data = {"input": item.name, "index": index, "value": value, "origin": producer.op_type if producer else "input"}
        fold = ctx.tables.atc_options.get(FOLD_OPTION)
        fold_default = fold.default if fold is not None and fold.default else "true"
        source = f"{page}; op_tables/op_spec.json"
        if ctx.is_foldable(value):
            return self.finding(
                node,
                f"{node.op_type} input '{item.name}' must be a constant per the published operator list, but it is "
                f"{origin}; it is computable before run time, so ATC's constant folding ({FOLD_OPTION}, default "
                f"{fold_default}) may fold it, which the page does not promise",
                hint="run 'atccheck fix' (simplify) to fold it into an initializer",
                source=source,
                severity=Severity.WARNING,
                data={**data, "foldable": True, "foldable_once_static": True},
            )
        if ctx.graph.is_foldable(value, _shapes_static):
            dynamic = [name for name in ctx.graph.real_inputs if not ctx.is_static(name)]
            return self.finding(
                node,
                f"{node.op_type} input '{item.name}' must be a constant per the published operator list, but it is "
                f"{origin} from input shapes that are not static yet; it becomes foldable once they are",
                hint="fix the input shapes with --input-shape (see dynamic-input-shape), then run 'atccheck fix' "
                "(simplify) to fold it into an initializer",
                source=source,
                severity=Severity.WARNING,
                data={**data, "foldable": False, "foldable_once_static": True, "dynamic_inputs": dynamic},
            )
        return self.finding(
            node,
            f"{node.op_type} input '{item.name}' must be a constant per the published operator list, but it is "
            f"{origin} and depends on run-time data; ATC cannot read it at build time",
            hint="make the value a constant in the model (fixed scales or sizes, fixed thresholds), or, if it "
            "depends only on input shapes, fix them with --input-shape and run 'atccheck fix' (simplify)",
            source=source,
            data={**data, "foldable": False, "foldable_once_static": False},
        )


def _shapes_static(_name: str) -> bool:
    """Foldability as if every shape were static (Shape and Size of anything fold)."""
    return True


def _index_of(item: SpecInput, names: list[str] | None) -> int | None:
    """Where the published input sits at this opset: by name, else the page's position."""
    if names is None:
        return item.index
    if item.name in names:
        return names.index(item.name)
    return None
