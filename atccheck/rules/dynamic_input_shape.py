"""dynamic-input-shape: a model input has symbolic or missing dims that --input-shape did not fix."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from atccheck.context import CheckContext
from atccheck.findings import Finding, Severity
from atccheck.model.shapes import Dim, type_info
from atccheck.rules.base import Rule, register

PARSE_SOURCE = "hicann/ge@ffdcbc9f7:parser/parser/onnx/onnx_parser.cc (ParseInput)"
CHECK_SOURCE = "hicann/ge@ffdcbc9f7:api/atc/omg.cc (CheckInputShapeNode)"
GEAR_SOURCE = "hicann/ge@ffdcbc9f7:compiler/api/aclgrph/option_utils.cc; shared/reference/notes/atc_cli.md rules 13-15"
DYNAMIC_SOURCE = ("shared/reference/notes/cann_source.md section 5 (-1 without a gear option: a dynamic-shape model); "
                  "atc_options.json --input_shape")

# Example sizes for the hints (not facts: a user puts their own): one triple per kind of axis,
# the first for a static --input-shape, all three as gears.
BATCH_SIZES = (1, 4, 8)  # axis 0
IMAGE_SIZES = (224, 320, 448)  # H and W of a 4-D input (any axis but 0)
OTHER_SIZES = (128, 256, 512)  # sequence length, time steps, ...
BATCH_GEARS = "1,2,4,8"


@dataclass(frozen=True)
class DynamicInput:
    """A real model input and which of its axes ATC will read as -1."""

    name: str
    dims: tuple[Dim, ...]
    axes: tuple[int, ...]

    def static_dims(self, sizes: dict[str, tuple[int, ...]], gear: int = 0) -> list[int]:
        """The dims with every dynamic axis at its example size (``gear``-th of its triple)."""
        return [example_sizes(self, a, sizes)[gear] if a in self.axes else int(d)  # type: ignore[arg-type]
                for a, d in enumerate(self.dims)]

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
    Give static dims for every dynamic input in one string (the hint writes one with example
    sizes, e.g. ``--input-shape "input_ids:1,128;attention_mask:1,128"``, the same string ATC's
    ``--input_shape`` takes; ``atccheck fix`` runs ``make-inputs-static``), or keep the dims as
    gears: ``--dynamic_batch_size`` when only axis 0 varies, ``--dynamic_image_size`` for H and W
    of a 4-D input, ``--dynamic_dims`` otherwise (one mechanism per model); ``atccheck check``
    takes the same gears (``--dynamic-batch``, ``--dynamic-image-size``, ``--dynamic-dims``) and
    checks each as the static model ATC builds for it. On chips and releases that compile dynamic
    shapes (not Ascend310/310B, not CANN 5.0/6.0), -1 kept in ``--input_shape`` without a gear
    option is a third route: a dynamic-shape model, where every op needs a dynamic-shape kernel or
    runs on AI CPU; the message says which route the target has.

    ## Facts
    Dim reading: hicann/ge parser/parser/onnx/onnx_parser.cc ``ParseInput``. The E10001
    check: hicann/ge api/atc/omg.cc ``CheckInputShapeNode``. Gear rules (E10009, E10018,
    E10019, E10035): hicann/ge compiler/api/aclgrph/option_utils.cc and
    multi_batch_options.cc, as restated in shared/reference/notes/cann_source.md section 5
    and atc_cli.md rules 10-16. -1 without a gear option as a dynamic-shape model (every op
    needs a kernel with dynamicShapeSupport, or runs on AI CPU): cann_source.md section 5;
    chips without it (EZ3002) and releases without it (E10011): atc_options.json
    ``--input_shape``. The example sizes in the hint are examples, not facts.
    """

    code = "AC201"
    name = "dynamic-input-shape"
    severity = Severity.ERROR
    op_types = frozenset()

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
        sizes: dict[str, tuple[int, ...]] = {}  # one example per symbol, so shared symbols agree
        suggested = ";".join(f"{item.name}:" + ",".join(map(str, item.static_dims(sizes))) for item in dynamic)
        gear_values = _gear_example(gear_option, dynamic, sizes)
        for item in dynamic:
            yield self._dynamic_finding(ctx, item, gear_option, gear_shape, gear_values, suggested, sizes)
        for name in shapeless:
            yield self.finding(
                ctx,
                f"input '{name}' has no shape in the model; ATC reads it as rank 0 (a scalar) unless "
                "--input_shape gives its dims, and every op reading it is then built for a scalar",
                hint=f"give its dims: --input-shape \"{name}:d0,d1,...\" (the same string for atc --input_shape), "
                "or re-export with the input's shape",
                source=PARSE_SOURCE,
                severity=Severity.WARNING,
                data={"input": name, "rank_read_by_atc": 0},
            )

    def _dynamic_finding(
        self, ctx: CheckContext, item: DynamicInput, gear_option: str, gear_shape: str, gear_values: str,
        suggested: str, sizes: dict[str, tuple[int, ...]],
    ) -> Finding:
        symbols = [_dim_text(item.dims[a]) for a in item.axes]
        axes_text = ", ".join(f"{a} ({s})" for a, s in zip(item.axes, symbols))
        soc, profile = ctx.target.soc, ctx.target.profile
        nd = " --input_format=ND" if gear_option == "--dynamic_dims" else ""
        check_flag = {"--dynamic_batch_size": "--dynamic-batch", "--dynamic_image_size": "--dynamic-image-size",
                      "--dynamic_dims": "--dynamic-dims"}[gear_option]
        if not soc.dynamic_shape:
            route = (f"; a -1 kept without a gear option is dynamic-shape compilation, which {soc.name} does not "
                     "have (EZ3002)")
            bare = ""
        elif not profile.input_shape_ranges:
            route = f"; CANN {profile.id} takes -1 only with a gear option (E10011)"
            bare = ""
        else:
            route = (f"; a -1 kept in --input_shape without a gear option is the dynamic-shape route, which "
                     f"{soc.name} has: every op then needs a dynamic-shape kernel or runs on AI CPU (slower than "
                     "static or gears)")
            bare = "; or keep -1 for a dynamic-shape build, as the atc command below does"
        hint = (
            f"set every dynamic input at once: --input-shape \"{suggested}\" (example sizes: put yours; atc "
            f"--input_shape takes the same string), or keep them variable with gears: atccheck check "
            f"{check_flag} \"{gear_values}\" (atc: --input_shape=\"{gear_shape}\" {gear_option}=\"{gear_values}\"{nd}; "
            f"example gears){bare}"
        )
        return self.finding(
            ctx,
            f"input '{item.name}' has dynamic dims on axes {axes_text}; ATC reads them as -1 and stops with "
            f"E10001 unless --input_shape sets them (static sizes, or -1 with a gear option){route}",
            hint=hint,
            source=f"{PARSE_SOURCE}; {CHECK_SOURCE}; {GEAR_SOURCE}; {DYNAMIC_SOURCE}",
            atc_error="E10001",
            data={
                "input": item.name,
                "axes": list(item.axes),
                "dim_params": [item.dims[a] if isinstance(item.dims[a], str) else None for a in item.axes],
                "suggested_input_shape": suggested,
                "gear_option": gear_option,
                "gear_input_shape": gear_shape,
                "gear_values": gear_values,
                "dynamic_shape_route": bool(bare),
            },
        )


def _dim_text(dim: Dim) -> str:
    if isinstance(dim, str):
        return f"'{dim}'"
    if isinstance(dim, int):
        return f"{dim} in the model"
    return "unset"


def example_sizes(item: DynamicInput, axis: int, sizes: dict[str, tuple[int, ...]]) -> tuple[int, ...]:
    """Example sizes for one dynamic axis; a symbol keeps the sizes it got first, so that inputs
    sharing it (input_ids and attention_mask on 'sequence') get the same ones."""
    if axis == 0:
        kind = BATCH_SIZES
    elif len(item.dims) == 4:  # H or W, channels first or last
        kind = IMAGE_SIZES
    else:
        kind = OTHER_SIZES
    symbol = item.dims[axis]
    if isinstance(symbol, str):
        return sizes.setdefault(symbol, kind)
    return kind


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


def _gear_example(option: str, dynamic: list[DynamicInput], sizes: dict[str, tuple[int, ...]]) -> str:
    """Example gears: batch sizes, image sizes, or for --dynamic_dims one value per -1 in
    --input_shape order, each gear taking the next size of every axis's example triple."""
    if option == "--dynamic_batch_size":
        return BATCH_GEARS
    if option == "--dynamic_image_size":
        return ";".join(f"{size},{size}" for size in IMAGE_SIZES[::2])
    gears = []
    for gear in range(len(OTHER_SIZES)):
        values = [example_sizes(item, a, sizes)[gear] for item in dynamic for a in item.axes]
        gears.append(",".join(map(str, values)))
    return ";".join(gears)
