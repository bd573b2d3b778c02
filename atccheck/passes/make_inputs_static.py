"""make-inputs-static: write static sizes into the model's dynamic input dims."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from atccheck.errors import UsageError
from atccheck.model.shapes import dims_text
from atccheck.passes.base import FixLink, FixPass, Note, PassContext, PassResult, left, register_pass

if TYPE_CHECKING:  # pragma: no cover
    import onnx

    from atccheck.model.shapes import Dim

DEFAULT_BATCH = 1


@dataclass(frozen=True)
class DimRef:
    input: str
    axis: int
    dim: "Dim"  # the symbol (dim_param), or None for an unset dim

    @property
    def text(self) -> str:
        return f"'{self.dim}'" if isinstance(self.dim, str) else "unnamed"


@dataclass
class StaticPlan:
    """What make-inputs-static will write: per real input, its dims afterwards.

    ``dims`` holds an int where the dim is (or becomes) static and the symbol (or None) where it
    stays dynamic. ``bound`` maps each symbol given a size to that size.
    """

    dims: dict[str, tuple["Dim", ...]] = field(default_factory=dict)
    bound: dict[str, int] = field(default_factory=dict)
    user: dict[str, tuple[int, ...]] = field(default_factory=dict)
    defaulted: list[DimRef] = field(default_factory=list)
    kept: list[DimRef] = field(default_factory=list)  # the user wrote -1
    left: list[DimRef] = field(default_factory=list)  # no size could be guessed
    shapeless: list[str] = field(default_factory=list)
    ambiguous: set[str] = field(default_factory=set)  # one symbol, several user sizes: not a shared dim

    def warnings(self) -> list[str]:
        """What a user must know about the sizes fix chose (or could not choose)."""
        out: list[str] = []
        for ref in self.defaulted:
            out.append(
                f"input '{ref.input}' axis {ref.axis} ({ref.text}) is taken as the batch and set to {DEFAULT_BATCH}: "
                f"give --input-shape to choose another size, or keep it variable with atc gears "
                f"(--dynamic_batch_size) on the original model"
            )
        for ref in self.left:
            out.append(
                f"input '{ref.input}' axis {ref.axis} ({ref.text}) stays dynamic: no size can be guessed for it; give "
                f"--input-shape, or build with atc gears (--dynamic_dims / --dynamic_image_size)"
            )
        for name in self.shapeless:
            out.append(f"input '{name}' has no shape in the model; give all its dims with --input-shape")
        return out

    def shape_text(self, name: str) -> str:
        return dims_text(self.dims[name])


def _declared(vi: "onnx.ValueInfoProto") -> tuple["Dim", ...] | None:
    from atccheck.model.shapes import type_info

    info = type_info(vi.type)
    if info is None or info.shape is None:
        return None
    return tuple(None if isinstance(d, int) and d < 0 else d for d in info.shape)


def plan_static_shapes(model: "onnx.ModelProto", user: Mapping[str, Sequence[int]] | None = None) -> StaticPlan:
    """Decide the static input dims: the user's sizes first, then batch 1 on axis 0.

    A symbol shared by several inputs gets one size everywhere (unless the user gave it
    different sizes: then it is a reused placeholder and each dim is its own). Raises
    UsageError when a user size contradicts a static dim of the model.
    """
    from atccheck.model.shapes import graph_inputs

    user_sizes = {name: tuple(int(d) for d in dims) for name, dims in (user or {}).items()}
    inputs = graph_inputs(model)
    by_name = {vi.name: vi for vi in inputs}
    plan = StaticPlan(user=dict(user_sizes))
    for name in user_sizes:
        if name not in by_name:
            known = ", ".join(by_name) or "none"
            raise UsageError(f"--input-shape names '{name}', which is not a model input (inputs: {known}) (ATC: E10016)")
    declared = {vi.name: _declared(vi) for vi in inputs}
    kept_symbols: set[str] = set()
    sizes_of: dict[str, set[int]] = {}

    # the user's sizes
    for name, given_dims in user_sizes.items():
        model_dims = declared[name]
        if model_dims is not None and len(model_dims) != len(given_dims):
            raise UsageError(f"--input-shape '{name}' has rank {len(given_dims)} but the model input has rank "
                             f"{len(model_dims)} (ATC: E10049)")
        for axis, size in enumerate(given_dims):
            dim = model_dims[axis] if model_dims is not None else None
            if isinstance(dim, int):
                if size > 0 and size != dim:
                    raise UsageError(f"--input-shape '{name}' gives axis {axis} size {size}, but the model fixes it at "
                                     f"{dim}; fix only changes dynamic dims")
            elif isinstance(dim, str):
                if size > 0:
                    sizes_of.setdefault(dim, set()).add(size)
                else:
                    kept_symbols.add(dim)
    # A symbol the user gave one size binds every dim that uses it. Exporters also reuse one
    # placeholder ('?', '-1') for unrelated dims: a symbol given different sizes binds nothing.
    for dims in declared.values():
        named = [d for d in dims or () if isinstance(d, str)]
        plan.ambiguous.update(d for d in named if named.count(d) > 1)
    for symbol, sizes in sizes_of.items():
        if len(sizes) == 1 and symbol not in plan.ambiguous:
            plan.bound[symbol] = next(iter(sizes))
        else:
            plan.ambiguous.add(symbol)
    # batch 1 where nothing else decides
    for vi in inputs:
        dims = declared[vi.name]
        if dims is None or len(dims) < 2 or vi.name in user_sizes:
            continue
        dim = dims[0]
        if isinstance(dim, str) and dim not in plan.bound and dim not in kept_symbols and dim not in plan.ambiguous:
            plan.bound[dim] = DEFAULT_BATCH
            plan.defaulted.append(DimRef(vi.name, 0, dim))
        elif dim is None or (isinstance(dim, str) and dim in plan.ambiguous):
            plan.defaulted.append(DimRef(vi.name, 0, dim))
    defaulted_here = {(r.input, r.axis) for r in plan.defaulted if r.dim is None or r.dim in plan.ambiguous}
    # the result, per input
    for vi in inputs:
        dims = declared[vi.name]
        given = user_sizes.get(vi.name)
        if dims is None:
            if given is not None and all(d > 0 for d in given):
                plan.dims[vi.name] = tuple(given)
            else:
                plan.shapeless.append(vi.name)
            continue
        out: list["Dim"] = []
        for axis, dim in enumerate(dims):
            if isinstance(dim, int):
                out.append(dim)
            elif given is not None and given[axis] > 0:
                out.append(given[axis])
            elif isinstance(dim, str) and dim in plan.bound:
                out.append(plan.bound[dim])
            elif (vi.name, axis) in defaulted_here:
                out.append(DEFAULT_BATCH)
            else:
                out.append(dim)
                ref = DimRef(vi.name, axis, dim)
                if (given is not None and given[axis] == -1) or (isinstance(dim, str) and dim in kept_symbols):
                    plan.kept.append(ref)
                else:
                    plan.left.append(ref)
        plan.dims[vi.name] = tuple(out)
    return plan


@register_pass
class MakeInputsStatic(FixPass):
    """Write static sizes into dynamic input dims: the user's ``--input-shape``, else batch 1.

    Sizes come from ``--input-shape`` first (``-1`` keeps a dim dynamic on purpose). Of the
    dims nothing names, axis 0 of every input of rank 2 or more is taken as the batch and set
    to 1, with a warning (atc gears, ``--dynamic_batch_size``, are the way to keep it
    variable). Any other symbolic dim (a sequence length, an image side) cannot be guessed: it
    stays dynamic and the finding stays, saying so. A symbol shared by several inputs gets one
    size everywhere, and graph outputs and value_info that use a fixed symbol get the size too.
    Exact: nodes and weights are untouched, so the model computes the same on inputs of the
    fixed sizes (proved structurally, no run needed).
    """

    name = "make-inputs-static"
    stage = "make-inputs-static"
    answers = (
        FixLink("dynamic-input-shape", has=("axes",)),
        FixLink("dynamic-input-shape", named=False),
    )
    safe = True
    tolerance = 0.0
    rtol = 0.0

    def run(self, model: "onnx.ModelProto", ctx: PassContext) -> PassResult:
        plan = plan_static_shapes(model, ctx.input_shapes)
        notes: list[str] = []
        modified = False
        for vi in model.graph.input:
            target = plan.dims.get(vi.name)
            if target is None:
                continue
            before = _declared(vi)
            if before == target:
                continue
            _write_dims(vi, target)
            modified = True
            old = dims_text(before or ())
            notes.append(Note(f"input '{vi.name}': {old if before is not None else 'no shape'} -> "
                              f"{plan.shape_text(vi.name)}", about=(vi.name,)))
        if (plan.bound or modified) and _substitute(model.graph, plan.bound):
            modified = True
            notes.append("fixed sizes written into output and value_info annotations too")
        for ref in plan.defaulted:
            notes.append(Note(f"input '{ref.input}' axis {ref.axis} ({ref.text}) set to batch {DEFAULT_BATCH} by default",
                              about=(ref.input,)))
        for ref in plan.left:
            notes.append(left(f"input '{ref.input}' axis {ref.axis} ({ref.text}) left dynamic: no size can be guessed "
                              "(give --input-shape, or use atc gears)", ref.input))
        for ref in plan.kept:
            notes.append(Note(f"input '{ref.input}' axis {ref.axis} ({ref.text}) kept dynamic (-1 in --input-shape)",
                              about=(ref.input,)))
        return PassResult(model, modified, notes)


def _write_dims(vi: "onnx.ValueInfoProto", dims: Sequence["Dim"]) -> None:
    shape = vi.type.tensor_type.shape
    while len(shape.dim) < len(dims):
        shape.dim.add()
    for axis, size in enumerate(dims):
        dim = shape.dim[axis]
        if isinstance(size, int):
            dim.dim_value = size  # clears dim_param (oneof)
        elif isinstance(size, str):
            dim.dim_param = size


def _substitute(graph: "onnx.GraphProto", bound: Mapping[str, int], root: bool = True) -> bool:
    """Replace fixed symbols by their sizes in outputs and value_info of every graph.

    A negative ``dim_value`` (some exporters write -1 for "unknown") in an output or
    value_info becomes an unknown dim: once the inputs are static, shape inference finds the
    real size and a stale -1 would contradict it.
    """
    import onnx

    changed = False
    annotated = list(graph.output) + list(graph.value_info) + ([] if root else list(graph.input))
    for vi in annotated:
        if vi.type.WhichOneof("value") != "tensor_type" or not vi.type.tensor_type.HasField("shape"):
            continue
        for dim in vi.type.tensor_type.shape.dim:  # placeholders reused for unrelated dims are not bound
            which = dim.WhichOneof("value")
            if which == "dim_param" and dim.dim_param in bound:
                dim.dim_value = bound[dim.dim_param]
                changed = True
            elif which == "dim_value" and dim.dim_value < 0:
                dim.ClearField("dim_value")
                changed = True
    for node in graph.node:
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.GRAPH:
                changed |= _substitute(attr.g, bound, root=False)
            elif attr.type == onnx.AttributeProto.GRAPHS:
                for sub in attr.graphs:
                    changed |= _substitute(sub, bound, root=False)
    return changed
