"""The library's front doors: :func:`check` and :func:`fix`, above everything they put together.

``check`` loads and prepares a model (:mod:`atccheck.engine`), checks it once, or once per gear
of a gear option (:mod:`atccheck.gears`), and gives the report its atc command line; ``fix``
runs the fix pipeline (:mod:`atccheck.fixing.pipeline`). ``atccheck.check`` and
``atccheck.fix`` are these functions.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from atccheck.engine import InputShapes, check_prepared, prepare
from atccheck.report import Report
from atccheck.target import DEFAULT_PRECISION_MODE, DEFAULT_PROFILE, resolve_target

if TYPE_CHECKING:  # pragma: no cover
    import onnx

    from atccheck.fixing.pipeline import fix

__all__ = ["check", "fix"]


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
) -> Report:
    """Check a model (path or ModelProto) for one chip; never reads external weights.

    A gear option (at most one, the values as ``atc-cmd`` takes them) checks the model as ATC
    builds it: one static graph per gear, -1 in ``input_shapes`` marking the gear axes.

    Raises :class:`atccheck.errors.InputError` for an unreadable model and
    :class:`atccheck.errors.UsageError` for option values atccheck cannot use.
    """
    from atccheck.atc.command import resolve_gears
    from atccheck.gears import check_geared, prepare_gears

    target = resolve_target(soc, cann, precision_mode)
    options = {"device_memory": device_memory} if device_memory else None
    gears = resolve_gears(dynamic_batch, dynamic_image_size, dynamic_dims)
    if gears is not None:
        return check_geared(prepare_gears(model, gears, input_shapes), target, select=select, ignore=ignore,
                            options=options)
    prepared = prepare(model, input_shapes)
    return check_prepared(prepared, target, select=select, ignore=ignore, options=options)


def __getattr__(name: str) -> object:
    """``fix``: the fix pipeline's front door, imported when first asked for (check never needs it)."""
    if name == "fix":
        from atccheck.fixing.pipeline import fix

        globals()["fix"] = fix
        return fix
    raise AttributeError(f"module 'atccheck.api' has no attribute {name!r}")
