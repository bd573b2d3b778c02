"""The precision preflight's front: the request ``check --numerics`` passes, and the runs for check and fix.

:class:`NumericsRequest` is what ``check --numerics`` and ``atccheck.check(..., numerics=True)``
put into the check's options; the engine calls it with the check's context before the rules run
(it never imports this module), and the result is ``ctx.numerics``. ``fix`` calls
:func:`preflight_written` on the model it writes.

Importing this module imports neither numpy nor onnxruntime.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    import onnx

    from atccheck.context import CheckContext
    from atccheck.precision.analysis import NumericsResult
    from atccheck.report import Report

OPTION = "numerics"  # the key of CheckContext.options that asks for the simulation


@dataclass(frozen=True)
class NumericsRequest:
    """What ``check --numerics`` asks for (picklable: it travels to ``-j`` workers)."""

    inputs: str | None = None  # an .npz file of input arrays, besides the seeded random inputs
    search: bool = True  # search the --keep_dtype list when outputs lose precision
    keep_dtype_out: str | None = None  # where the keep list will be written (the atc command names it)

    def __call__(self, ctx: "CheckContext") -> "NumericsResult":
        """The preflight of the checked model (the engine's hook, run before the rules)."""
        return run_numerics(ctx, self)


def alternative_mode(ctx: "CheckContext") -> str | None:
    """The bfloat16 mixed mode to try besides a float16 mode, on chips that have bfloat16 modes
    (socs.json bf16_precision): its range is float32's, so float16 overflows disappear."""
    from atccheck.errors import UsageError
    from atccheck.target import resolve_precision_mode

    facts = ctx.tables.precision
    mode = facts.modes.get(ctx.target.precision_mode)
    if mode is None or mode.low != "float16" or not ctx.target.soc.bf16_precision:
        return None
    for candidate in ("mixed_bfloat16", "allow_mix_precision_bf16"):
        try:
            return resolve_precision_mode(candidate, ctx.target.soc, ctx.target.profile, ctx.tables)
        except UsageError:
            continue
    return None


def model_with_weights(ctx: "CheckContext") -> "tuple[onnx.ModelProto, bytes | None]":
    """The checked model with every weight read (check loads the graph only), and the file's bytes
    where they are the whole model (no external data): the simulation extends them as they are."""
    from atccheck.model.loading import load_model, read_weights

    if ctx.loaded.path is None:
        return ctx.model, None  # a caller's ModelProto holds its weights
    if not ctx.loaded.external:  # the check already validated this file: parse it whole, nothing more
        from atccheck.model import onnxpb

        data = ctx.loaded.path.read_bytes()
        return onnxpb.ModelProto.FromString(data), data
    loaded = load_model(ctx.loaded.path, weights=True)
    return read_weights(loaded, ctx.loaded.path), None


def planned_dims(model: "onnx.ModelProto", overrides: Mapping[str, Sequence[int]]) -> dict[str, list[int | str | None]]:
    from atccheck.model.shapes import graph_inputs, type_info

    dims: dict[str, list[int | str | None]] = {}
    for vi in graph_inputs(model):
        if vi.name in overrides:
            dims[vi.name] = [int(d) if int(d) >= 0 else None for d in overrides[vi.name]]
            continue
        info = type_info(vi.type)
        shape = list(info.shape) if info is not None and info.shape is not None else []
        dims[vi.name] = [None if isinstance(d, int) and d < 0 else d for d in shape]  # -1 is a dynamic dim
    return dims


def run_numerics(
    ctx: "CheckContext",
    request: NumericsRequest,
    model: "onnx.ModelProto | None" = None,
    samples: "Mapping[str, np.ndarray] | None" = None,
) -> "NumericsResult":
    """The precision preflight of the checked model under the target's precision mode.

    Raises InputError / UsageError for an unreadable ``--inputs`` file or arrays that do not fit
    the model; a model onnxruntime cannot run gives a result with ``error`` set.
    """
    from atccheck.fixing.inputs import load_samples, make_inputs
    from atccheck.fixing.runtime import RunError
    from atccheck.precision.analysis import NumericsResult, analyze
    from atccheck.precision.dtypes import mode_facts
    from atccheck.precision.simulate import SimulationError, Simulator

    target = ctx.target
    mode_facts(ctx, target.precision_mode)  # a mode that cannot be simulated is a usage error
    source = None
    if model is None:
        model, source = model_with_weights(ctx)
    label = "sample"
    if samples is None and request.inputs is not None:
        samples, label = load_samples(request.inputs), f"--inputs {os.fspath(request.inputs)}"
    try:
        feed = make_inputs(model, planned_dims(model, ctx.input_shapes), samples, label)
        simulator = Simulator(model, feed.sets, source)
        return analyze(ctx, simulator, feed.describe(), search=request.search, alternative=alternative_mode(ctx))
    except (RunError, SimulationError) as exc:
        return NumericsResult(target.precision_mode, target.soc.name, (), error=str(exc))
    except (MemoryError, RecursionError, ValueError, TypeError, KeyError, IndexError) as exc:
        # a model the simulation cannot take: said in one info finding, never a traceback
        return NumericsResult(target.precision_mode, target.soc.name, (),
                              error=f"the simulation failed on this model: {type(exc).__name__}: {exc}"[:400])


def keep_file_path(model_path: "str | os.PathLike[str]") -> Path:
    """Where ``fix`` writes the keep list of the model it writes: beside it, ``<stem>.keep_dtype.cfg``."""
    path = Path(model_path)
    stem = path.name[: -len(".onnx")] if path.name.endswith(".onnx") else path.name
    return path.with_name(f"{stem}.keep_dtype.cfg")


def preflight_written(
    report: "Report", model: "onnx.ModelProto", out: Path, samples: "Mapping[str, np.ndarray] | None",
) -> "tuple[NumericsResult | None, Path | None]":
    """``fix``: the precision preflight of the model it wrote, and the keep list written beside it
    when one restores the outputs. A model whose inputs cannot be made is left without one."""
    from atccheck.errors import AtcCheckError
    from atccheck.fileio import atomic_write_text
    from atccheck.model import onnxpb
    from atccheck.model.loading import iter_graph_tensors, load_model, read_weights

    ctx = report.context
    if ctx is None:
        return None, None
    try:
        if any(t.data_location == onnxpb.TensorProto.EXTERNAL for t in iter_graph_tensors(model.graph)):
            # written with its weights beside it (saving moved them out of the proto): read them back
            model = read_weights(load_model(out), out)
        result = run_numerics(ctx, NumericsRequest(), model=model, samples=samples)
    except AtcCheckError:  # the user's sample fits the input model, not the fixed shapes
        return None, None
    keep = result.keep
    if keep is None or not keep.nodes or not keep.restored:
        return result, None
    path = keep_file_path(out)
    atomic_write_text(path, keep_file_text(keep.nodes))
    return result, path


def keep_file_text(nodes: Sequence[str]) -> str:
    from atccheck.precision.analysis import keep_file_text as text

    return text(nodes)


def summary(result: "NumericsResult") -> dict[str, Any]:
    return result.to_dict()
