"""dynamic-shape-unsupported: shapes stay unknown after inference with the shapes the user set."""

from __future__ import annotations

from collections.abc import Iterable

from atccheck.context import CheckContext, NodeContext
from atccheck.domains import is_standard
from atccheck.findings import Finding, Severity
from atccheck.rules.base import Rule, register

RANGE_SOURCE = "hicann/ge@ffdcbc9f7:compiler/api/aclgrph/option_utils.cc (-1 without a gear option becomes a shape range)"
EZ3002_SOURCE = "hicann/runtime@681ef7610:src/dfx/error_manager/error_code.json (EZ3002 'Dynamic shape is not supported on this chip!')"
GEAR_SOURCE = "shared/reference/notes/atc_cli.md rule 17 (gear mode cannot handle data-dependent internal shapes)"
FOLD_SOURCE = "atc_options.json --oo_constant_folding (default true)"


@register
class DynamicShapeUnsupported(Rule):
    """Some shapes stay unknown even with every input shape the user set.

    ## What it does
    After shape inference with the shapes given by ``--input-shape``, and constant folding
    of the shape arithmetic those shapes make computable (``atccheck/model/folding.py``:
    a flatten through ``Shape -> Gather -> Div -> Concat -> Reshape`` comes out static, as
    it does in ATC), reports every node
    whose inputs (outer-scope reads of its subgraphs included) all have static shapes but
    whose output shape is still unknown: the origin of a data-dependent shape (NonZero,
    Unique, NonMaxSuppression, TopK with a run-time K, Reshape/Expand/Tile/Range/
    ConstantOfShape/Slice fed with run-time values, If on a run-time condition, ...). Nodes
    downstream of an origin are not reported again. Whether the shape-giving inputs
    (``op_facts.json`` kind ``shape-value-inputs``, from the ONNX operator spec; every input
    for other ops) are
    computable before run time decides the verdict: run-time data gives the chip-dependent
    severity; constants and static shapes give an info (a value ATC's constant folding
    will likely compute but that neither ONNX inference nor atccheck's folding evaluates); values that become constant only once the dynamic
    input dims are fixed are left to dynamic-input-shape. One model-level finding names the
    dims ``--input-shape`` keeps dynamic with ``-1``. Custom-domain nodes, and outputs the
    ONNX inference knows nothing about, are not judged.

    ## Why
    ATC compiles such a model as a dynamic-shape model (a lone ``-1`` without a gear option
    becomes a shape range). Ascend310 and Ascend310B* cannot compile dynamic shape: the
    build stops with EZ3002 "Dynamic shape is not supported on this chip!". Elsewhere it
    builds, but every op then needs a kernel with dynamic-shape support or runs on AI CPU.
    The gear options (``--dynamic_batch_size``, ``--dynamic_image_size``,
    ``--dynamic_dims``) do not help with data-dependent internal shapes.

    ## Example
    ``NonZero`` on a static ``[1, 100]`` input checked for ``--soc Ascend310``: its output
    is ``[2, ?]``, and every op after it is dynamic.

    ## Fix
    When the unknown shape is computable from constants and static shapes, ``atccheck fix``
    (``simplify``) folds it into a constant. A shape that depends on run-time data needs a
    model change (a fixed-size variant of the op, or moving it out of the model) or a chip
    with dynamic-shape support. User ``-1`` dims: give static sizes or a gear option.

    ## Facts
    Range compilation of ``-1``: hicann/ge compiler/api/aclgrph/option_utils.cc. EZ3002 and
    the chips without dynamic shape (``op_tables/socs.json`` ``dynamic_shape``): atc_cli.md
    rule 12, hicann/runtime error_code.json. Gear mode and data-dependent shapes: atc_cli.md
    rule 17. Which inputs give an op its output shape: ``op_facts.json`` kind
    ``shape-value-inputs``, from the ONNX operator spec (onnx/onnx docs/Operators.md); it is
    ONNX semantics, not a CANN fact.
    """

    code = "AC202"
    name = "dynamic-shape-unsupported"
    severity = Severity.ERROR
    op_types = None

    def check_model(self, ctx: CheckContext) -> Iterable[Finding]:
        kept = {name: [a for a, d in enumerate(dims) if d < 0] for name, dims in ctx.input_shapes.items()}
        kept = {name: axes for name, axes in kept.items() if axes}
        if not kept:
            return
        soc = ctx.target.soc
        listed = "; ".join(f"'{name}' axes {', '.join(map(str, axes))}" for name, axes in kept.items())
        text = ";".join(f"{name}:" + ",".join(str(d) for d in ctx.input_shapes[name]) for name in kept)
        if soc.dynamic_shape:
            effect = (
                f"without a gear option ATC builds a dynamic-shape model for {soc.name}: every op then needs a "
                "dynamic-shape kernel or runs on AI CPU"
            )
        else:
            effect = (
                f"without a gear option ATC builds a dynamic-shape model, which {soc.name} cannot compile "
                "(EZ3002 'Dynamic shape is not supported on this chip!')"
            )
        yield self.finding(
            ctx,
            f"--input-shape keeps -1 on {listed}; {effect}",
            hint="give static sizes in --input-shape, or pair the -1s with one gear option (--dynamic_batch_size, "
            "--dynamic_image_size or --dynamic_dims) if the model has no data-dependent shapes",
            source=f"{RANGE_SOURCE}; {EZ3002_SOURCE}",
            severity=self._severity(ctx),
            atc_error=None if soc.dynamic_shape else "EZ3002",
            data={"inputs": {name: axes for name, axes in kept.items()}, "input_shape": text,
                  "chip_dynamic_shape": soc.dynamic_shape},
        )

    def check_node(self, node: NodeContext) -> Iterable[Finding]:
        if not is_standard(node.domain):
            return
        ctx = node.ctx
        reads = node.ctx.graph.reads(node.node)
        if not all(ctx.is_static(name) for name in reads):
            return  # downstream of an unknown shape, not its origin
        unknown = []
        for index, name in enumerate(node.node.output):
            if not name:
                continue
            info = ctx.info(name)
            if info is None:
                return  # inference knows nothing about this op; not a claim about its shape
            if not info.is_static:
                unknown.append((index, info.shape))
        if not unknown:
            return
        values = _value_inputs(node)
        if all(ctx.is_foldable(name) for name in values):
            yield self._foldable(node, unknown, values)
            return
        if all(ctx.graph.is_foldable(name, _shapes_static) for name in values):
            return  # constant once the dynamic input dims are fixed: dynamic-input-shape's business
        soc = ctx.target.soc
        if soc.dynamic_shape:
            effect = (
                f"ATC builds a dynamic-shape model for {soc.name}: every op after it needs a dynamic-shape kernel "
                "or runs on AI CPU"
            )
        else:
            effect = f"{soc.name} cannot compile dynamic shape (EZ3002 'Dynamic shape is not supported on this chip!')"
        yield self.finding(
            node,
            f"{node.op_type} makes a data-dependent shape ({_outputs_text(unknown)}) from static inputs; {effect}; "
            "gear options cannot handle data-dependent internal shapes",
            hint="replace it with a fixed-size variant or move it out of the model (post-processing), or target a "
            "chip with dynamic-shape support ('atccheck targets' lists them)",
            source=f"{RANGE_SOURCE}; {EZ3002_SOURCE}; {GEAR_SOURCE}",
            severity=self._severity(ctx),
            atc_error=None if soc.dynamic_shape else "EZ3002",
            data=_data(unknown, values, False, soc.dynamic_shape),
        )

    def _foldable(self, node: NodeContext, unknown: list, values: list[str]) -> Finding:
        return self.finding(
            node,
            f"{node.op_type} has static inputs and its shape-giving inputs are computable before run time, but ONNX "
            f"shape inference leaves {_outputs_text(unknown)}; ATC's constant folding probably makes it static, and "
            "atccheck cannot check the ops after it until it is folded",
            hint="run 'atccheck fix' (simplify) to fold it into constants so every later check sees static shapes",
            source=f"{RANGE_SOURCE}; {FOLD_SOURCE}",
            severity=Severity.INFO,
            data=_data(unknown, values, True, node.ctx.target.soc.dynamic_shape),
        )

    @staticmethod
    def _severity(ctx: CheckContext) -> Severity:
        return Severity.WARNING if ctx.target.soc.dynamic_shape else Severity.ERROR


def _shapes_static(_name: str) -> bool:
    """Foldability as if every shape were static (Shape and Size of anything fold)."""
    return True


def _value_inputs(node: NodeContext) -> list[str]:
    """The inputs whose values (not just shapes) decide the node's output shape."""
    reads = node.ctx.graph.reads(node.node)
    facts = node.ctx.tables.op_facts_for("shape-value-inputs", node.op_type, None)
    if not facts:
        return reads
    indices = (facts[0].params or {})["inputs"]
    return [node.node.input[i] for i in indices if i < len(node.node.input) and node.node.input[i]]


def _data(unknown: list, values: list[str], foldable: bool, chip_dynamic: bool) -> dict:
    return {
        "outputs": [{"index": i, "shape": _shape_list(shape)} for i, shape in unknown],
        "value_inputs": values,
        "foldable": foldable,
        "chip_dynamic_shape": chip_dynamic,
    }


def _outputs_text(unknown: list) -> str:
    return "; ".join(f"output {i} {_shape_text(shape)}" for i, shape in unknown)


def _shape_list(shape: tuple | None) -> list | None:
    return None if shape is None else [d if isinstance(d, (int, str)) else None for d in shape]


def _shape_text(shape: tuple | None) -> str:
    if shape is None:
        return "of unknown rank"
    return "[" + ", ".join(str(d) if isinstance(d, int) and d >= 0 else "?" for d in shape) + "]"
