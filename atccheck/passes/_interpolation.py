"""The matrix of a Resize along one axis: ONNX Resize is linear in its data, axis by axis.

At static sizes, Resize maps each 1-D line of its input along a resized axis through the
same fixed matrix ``A`` (``out x in``): ``Y = A_h X A_w^T`` for an image. :func:`axis_matrix`
builds ``A`` from the ONNX Resize definition (opsets 10-19): the coordinate transformation,
then nearest rounding or the linear/cubic kernel (stretched by ``1/scale`` under antialias
when downscaling, then normalised), indices outside the input taken at the edge or, with
``exclude_outside``, left out and the rest renormalised. ``tf_crop_and_resize`` rows whose
source lies outside the input hold no weight; :class:`AxisMap` names them, since they take
``extrapolation_value``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

COORDINATE_MODES = frozenset({
    "half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners", "asymmetric",
    "tf_half_pixel_for_nn", "tf_crop_and_resize",
})
NEAREST_MODES = frozenset({"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"})
MODES = frozenset({"nearest", "linear", "cubic"})


@dataclass(frozen=True)
class AxisResize:
    """What decides one axis's matrix: sizes, the scale, and the node's attributes."""

    size_in: int
    size_out: int
    scale: float
    mode: str = "nearest"
    coordinate_mode: str = "half_pixel"
    nearest_mode: str = "round_prefer_floor"
    cubic_coeff_a: float = -0.75
    exclude_outside: bool = False
    antialias: bool = False
    roi: tuple[float, float] = (0.0, 1.0)  # start, end (tf_crop_and_resize only)


@dataclass(frozen=True)
class AxisMap:
    matrix: "np.ndarray"  # float64 [size_out, size_in]
    outside: "np.ndarray"  # bool [size_out]: rows that take extrapolation_value (tf_crop_and_resize)

    @property
    def identity(self) -> bool:
        import numpy as np

        rows, cols = self.matrix.shape
        return rows == cols and not self.outside.any() and bool(np.array_equal(self.matrix, np.eye(rows)))


def source_coordinate(o: int, a: AxisResize) -> float:
    """Where output index ``o`` samples the input, in input coordinates.

    Computed in float32, as onnxruntime and onnx's reference evaluator do: where a nearest
    rounding falls on a tie (x.5), the float32 value decides, so the same precision gives
    the same index.
    """
    import numpy as np

    f = np.float32
    scale, n_in, n_out, x = f(a.scale), f(a.size_in), f(a.size_out), f(o)
    half, one = f(0.5), f(1)
    mode = a.coordinate_mode
    if mode == "half_pixel":
        value = (x + half) / scale - half
    elif mode == "half_pixel_symmetric":
        adjustment = n_out / (scale * n_in)
        center = n_in / f(2)
        value = center * (one - adjustment) + (x + half) / scale - half
    elif mode == "pytorch_half_pixel":
        value = (x + half) / scale - half if a.size_out > 1 else f(0)
    elif mode == "align_corners":
        value = f(0) if a.size_out == 1 else x * (n_in - one) / (n_out - one)
    elif mode == "asymmetric":
        value = x / scale
    elif mode == "tf_half_pixel_for_nn":
        value = (x + half) / scale
    elif mode == "tf_crop_and_resize":
        start, end = f(a.roi[0]), f(a.roi[1])
        if a.size_out > 1:
            value = start * (n_in - one) + x * (end - start) * (n_in - one) / (n_out - one)
        else:
            value = half * (start + end) * (n_in - one)
    else:
        raise ValueError(f"unknown coordinate_transformation_mode {mode!r}")
    return float(value)


def _nearest(x: float, how: str) -> int:
    if how == "floor":
        return math.floor(x)
    if how == "ceil":
        return math.ceil(x)
    low = math.floor(x)
    if x - low == 0.5:
        return low if how == "round_prefer_floor" else low + 1
    return math.floor(x + 0.5)


def _kernel(d: float, a: AxisResize) -> float:
    d = abs(d)
    if a.mode == "linear":
        return max(0.0, 1.0 - d)
    c = a.cubic_coeff_a
    if d <= 1:
        return (c + 2) * d ** 3 - (c + 3) * d ** 2 + 1
    if d < 2:
        return c * d ** 3 - 5 * c * d ** 2 + 8 * c * d - 4 * c
    return 0.0


def axis_matrix(a: AxisResize) -> AxisMap:
    """The ``[size_out, size_in]`` matrix of this axis (float64), and the rows outside the input."""
    import numpy as np

    if a.mode not in MODES:
        raise ValueError(f"unknown mode {a.mode!r}")
    matrix = np.zeros((a.size_out, a.size_in), np.float64)
    outside = np.zeros(a.size_out, bool)
    last = a.size_in - 1
    # the kernel's reach in input samples: 1 (linear) or 2 (cubic), stretched when antialiasing a downscale
    stretch = min(a.scale, 1.0) if a.antialias else 1.0
    reach = (1 if a.mode == "linear" else 2) / stretch
    for o in range(a.size_out):
        x = source_coordinate(o, a)
        if a.coordinate_mode == "tf_crop_and_resize" and (x < 0 or x > last):
            outside[o] = True
            continue
        if a.mode == "nearest":
            matrix[o, min(max(_nearest(x, a.nearest_mode), 0), last)] = 1.0
            continue
        span = range(math.floor(x - reach), math.ceil(x + reach) + 1)
        taps = [(j, _kernel((j - x) * stretch, a)) for j in span]
        taps = [(j, w) for j, w in taps if w != 0.0]
        if a.antialias:
            total = sum(w for _, w in taps)
            taps = [(j, w / total) for j, w in taps]
        if a.exclude_outside:
            taps = [(j, w) for j, w in taps if 0 <= j <= last]
            total = sum(w for _, w in taps)
            taps = [(j, w / total) for j, w in taps] if total else []
        for j, w in taps:
            matrix[o, min(max(j, 0), last)] += w
    return AxisMap(matrix, outside)
