"""dynamic-input-shape: a model input has symbolic or missing dims that --input-shape did not fix."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from atccheck import fix_catalog
from atccheck.context import CheckContext
from atccheck.findings import Finding, FixSuggestion, Severity
from atccheck.model.shapes import Dim, type_info
from atccheck.rules.base import Rule, register

PARSE_SOURCE = "hicann/ge@ffdcbc9f7:parser/parser/onnx/onnx_parser.cc (ParseInput)"
CHECK_SOURCE = "hicann/ge@ffdcbc9f7:api/atc/omg.cc (CheckInputShapeNode)"
GEAR_SOURCE = "hicann/ge@ffdcbc9f7:compiler/api/aclgrph/option_utils.cc; shared/reference/notes/atc_cli.md rules 13-15"

BATCH_GEARS = "1,2,4,8"
IMAGE_GEARS = "224,224;448,448"


@dataclass(frozen=True)
class DynamicInput:
    """A real model input and which of its axes ATC will read as -1."""

    name: str
    dims: tuple[Dim, ...]
    axes: tuple[int, ...]

    def static_text(self) -> str:
        """``name:d0,d1`` with every dynamic dim shown as 1."""
        return f"{self.name}:" + ",".join("1" if a in self.axes else str(d) for a, d in enumerate(self.dims))

    def gear_text(self) -> str:
        """``name:d0,d1`` with every dynamic dim written -1 (gear form)."""
        return f"{self.name}:" + ",".join("-1" if a in self.axes else str(d) for a, d in enumerate(self.dims))


@register
class DynamicInputShape(Rule):
    """A model input has dims ATC reads as -1, and --input-shape does not fix them.

    ## What it does
    Looks at every real graph input (initializer-backed inputs excluded) that the
    ``--input-shape`` given to atccheck does not name. It fires once per input whose shape
    has a symbolic dim (``dim_param``), an unset dim or a negative ``dim_value``, naming the
    axes and the symbols. It also fires, as a warning, for an input that carries no shape
    at all, which ATC reads as rank 0. Scalar inputs (shape ``[]``) are static and pass.
    Inputs named in ``--input-shape`` are left to dynamic-shape-unsupported, which reports
    the ``-1`` dims the user kept on purpose.

    ## Why
    ATC's ONNX parser turns every ``dim_param`` or unset dim into -1. With a -1 in any input
    and no ``--input_shape``, ``atc`` stops with E10001 ("The shapes of inputs contain -1 in
    the model. You may need to set input shape..."). An input with no shape gets an empty
    dim list, i.e. rank 0: it is built as a scalar unless ``--input_shape`` gives its dims.

    ## Example
    ``x`` declared as ``[batch, 3, H, W]`` and ``atccheck check model.onnx --soc Ascend310``
    without ``--input-shape``.

    ## Fix
    Give static dims (``--input-shape "x:1,3,224,224"``, the same string ATC's
    ``--input_shape`` takes; ``atccheck fix`` runs ``make-inputs-static``), or keep the dims
    as gears: ``--dynamic_batch_size`` when only axis 0 varies, ``--dynamic_image_size``
    for H and W of a 4-D input, ``--dynamic_dims`` otherwise (one mechanism per model).

    ## Facts
    Dim reading: hicann/ge parser/parser/onnx/onnx_parser.cc ``ParseInput``. The E10001
    check: hicann/ge api/atc/omg.cc ``CheckInputShapeNode``. Gear rules (E10009, E10018,
    E10019, E10035): hicann/ge compiler/api/aclgrph/option_utils.cc and
    multi_batch_options.cc, as restated in shared/reference/notes/cann_source.md section 5
    and atc_cli.md rules 10-16.
    """

    code = "AC201"
    name = "dynamic-input-shape"
    severity = Severity.ERROR
    op_types = frozenset()
    fix_pass = "make-inputs-static"
    fix_safe = True

    def check_model(self, ctx: CheckContext) -> Iterable[Finding]:
        inputs = {vi.name: vi for vi in ctx.model.graph.input}
        dynamic: list[DynamicInput] = []
        shapeless: list[str] = []
        scalars: list[str] = []
        static: dict[str, tuple[Dim, ...]] = {}
        for name in ctx.graph.real_inputs:
            info = type_info(inputs[name].type)
            if info is None:
                continue  # a sequence or map input: not a tensor ATC reads dims of
            if name in ctx.input_shapes:
                static[name] = tuple(ctx.input_shapes[name])
                continue
            if info.shape is None:
                shapeless.append(name)
                continue
            if not info.shape:
                scalars.append(name)
                continue
            axes = tuple(a for a, d in enumerate(info.shape) if not (isinstance(d, int) and d >= 0))
            if axes:
                dynamic.append(DynamicInput(name, info.shape, axes))
            else:
                static[name] = info.shape
        gear_option = _gear_option(dynamic)
        gear_shape = _gear_input_shape(ctx, dynamic, static, scalars)
        for item in dynamic:
            yield self._dynamic_finding(ctx, item, gear_option, gear_shape, len(dynamic))
        for name in shapeless:
            yield self.finding(
                ctx,
                f"input '{name}' has no shape in the model; ATC reads it as rank 0 (a scalar) unless "
                "--input_shape gives its dims, and every op reading it is then built for a scalar",
                hint=f"give its dims: --input-shape \"{name}:d0,d1,...\" (the same string for atc --input_shape), "
                "or re-export with the input's shape",
                source=PARSE_SOURCE,
                severity=Severity.WARNING,
                fix=FixSuggestion.manual(),
                data={"input": name, "rank_read_by_atc": 0},
            )

    def _dynamic_finding(
        self, ctx: CheckContext, item: DynamicInput, gear_option: str, gear_shape: str, count: int
    ) -> Finding:
        symbols = [_dim_text(item.dims[a]) for a in item.axes]
        axes_text = ", ".join(f"{a} ({s})" for a, s in zip(item.axes, symbols))
        static_text = item.static_text()
        gear_values = _gear_example(gear_option, gear_shape)
        others = " (one option for all dynamic inputs)" if count > 1 else ""
        nd = " --input_format=ND" if gear_option == "--dynamic_dims" else ""
        hint = (
            f"fix the dims: --input-shape \"{static_text}\" (dynamic dims shown as 1: put your sizes; atc takes the "
            f"same string as --input_shape), or keep them as gears{others}: --input_shape=\"{gear_shape}\" "
            f"{gear_option}=\"{gear_values}\"{nd} (example gears, at least 2)"
        )
        fix = fix_catalog.suggest(self.name)
        fix = FixSuggestion(fix.pass_name, fix.safe, {"input": item.name, "shape": _static_dims(item)})
        return self.finding(
            ctx,
            f"input '{item.name}' has dynamic dims on axes {axes_text}; ATC reads them as -1 and stops with "
            "E10001 unless --input_shape fixes them or a gear option is given",
            hint=hint,
            source=f"{PARSE_SOURCE}; {CHECK_SOURCE}; {GEAR_SOURCE}",
            atc_error="E10001",
            fix=fix,
            data={
                "input": item.name,
                "axes": list(item.axes),
                "dim_params": [item.dims[a] if isinstance(item.dims[a], str) else None for a in item.axes],
                "suggested_input_shape": static_text,
                "gear_option": gear_option,
                "gear_input_shape": gear_shape,
            },
        )


def _dim_text(dim: Dim) -> str:
    if isinstance(dim, str):
        return f"'{dim}'"
    if isinstance(dim, int):
        return f"{dim} in the model"
    return "unset"


def _static_dims(item: DynamicInput) -> list[int]:
    return [1 if a in item.axes else int(d) for a, d in enumerate(item.dims)]  # type: ignore[arg-type]


def _gear_option(dynamic: list[DynamicInput]) -> str:
    """The one gear mechanism that fits every dynamic input (ATC allows one per model: E10009)."""
    if not dynamic:
        return "--dynamic_dims"
    if all(item.axes == (0,) for item in dynamic):
        return "--dynamic_batch_size"
    if all(len(item.dims) == 4 and set(item.axes) <= {2, 3} for item in dynamic):
        return "--dynamic_image_size"
    return "--dynamic_dims"


def _gear_input_shape(
    ctx: CheckContext, dynamic: list[DynamicInput], static: dict[str, tuple[Dim, ...]], scalars: list[str]
) -> str:
    """The whole --input_shape for gear mode: -1 on the gear axes, scalars as ``name:``."""
    option = _gear_option(dynamic)
    by_name = {item.name: item for item in dynamic}
    parts = []
    for name in ctx.graph.real_inputs:
        if name in by_name:
            item = by_name[name]
            if option == "--dynamic_image_size":  # -1 exactly on H and W (E10019)
                item = DynamicInput(item.name, item.dims, (2, 3))
            parts.append(item.gear_text())
        elif name in scalars:
            parts.append(f"{name}:")  # mandatory in gear mode
        elif name in static:
            parts.append(f"{name}:" + ",".join(str(d) for d in static[name]))
    return ";".join(parts)


def _gear_example(option: str, gear_shape: str) -> str:
    if option == "--dynamic_batch_size":
        return BATCH_GEARS
    if option == "--dynamic_image_size":
        return IMAGE_GEARS
    count = sum(part.rpartition(":")[2].split(",").count("-1") for part in gear_shape.split(";"))
    return ";".join(",".join([str(v)] * count) for v in (1, 2))
