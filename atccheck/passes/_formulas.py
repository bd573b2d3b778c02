"""Formulas several decompositions share (Gelu in two passes, LayerNorm and its scale/shift in two passes).

Each takes an :class:`~atccheck.passes._rewrite.Emitter`, the input value name and its
element type, appends the ops, and returns the name of the result.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.passes._rewrite import Emitter, Rewriter

GELU_TANH_CUBIC = 0.044715  # the cubic coefficient of the tanh approximation (ONNX Gelu-20 spec)


def gelu_erf(em: "Emitter", x: str, elem: int, out: str | None = None) -> str:
    """0.5 * x * (1 + erf(x / sqrt(2))), in the op order exporters emit below opset 20."""
    scaled = em.op("Div", [x, em.scalar(math.sqrt(2.0), elem, "sqrt2")])
    erf = em.op("Erf", [scaled])
    one_plus = em.op("Add", [erf, em.scalar(1.0, elem, "one")])
    times_x = em.op("Mul", [x, one_plus])
    return em.op("Mul", [times_x, em.scalar(0.5, elem, "half")], out)


def gelu_tanh(em: "Emitter", x: str, elem: int, out: str | None = None) -> str:
    """0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))."""
    cube = em.op("Mul", [x, em.op("Mul", [x, x])])
    inner = em.op("Add", [x, em.op("Mul", [cube, em.scalar(GELU_TANH_CUBIC, elem, "cubic")])])
    tanh = em.op("Tanh", [em.op("Mul", [inner, em.scalar(math.sqrt(2.0 / math.pi), elem, "sqrt_2_over_pi")])])
    one_plus = em.op("Add", [tanh, em.scalar(1.0, elem, "one")])
    times_x = em.op("Mul", [x, one_plus])
    return em.op("Mul", [times_x, em.scalar(0.5, elem, "half")], out)


def normalize(
    em: "Emitter",
    x: str,
    axes: Sequence[int],
    epsilon: float,
    elem: int,
    stash: int | None = None,
    mean_out: str | None = None,
    inv_std_out: str | None = None,
) -> str:
    """(x - mean) / sqrt(var + epsilon) over ``axes`` (keepdims), computed in ``stash`` type.

    The op sequence is the one exporters write for layer norm below opset 17:
    ReduceMean, Sub, Pow 2, ReduceMean, Add eps, Sqrt, Div. ``mean_out`` and ``inv_std_out``
    name the optional statistics outputs (in the stash type, keepdims shape) when wanted.
    The result is cast back to ``elem`` when a stash type other than ``elem`` is given.
    """
    compute = stash if stash is not None else elem
    xs = em.cast(x, compute) if compute != elem else x
    mean = em.reduce("ReduceMean", xs, axes, 1, out=mean_out)
    centered = em.op("Sub", [xs, mean])
    squared = em.op("Pow", [centered, em.scalar(2.0, compute, "two")])
    variance = em.reduce("ReduceMean", squared, axes, 1)
    std = em.op("Sqrt", [em.op("Add", [variance, em.scalar(epsilon, compute, "epsilon")])])
    if inv_std_out:
        em.op("Reciprocal", [std], inv_std_out)
    normalized = em.op("Div", [centered, std])
    return em.cast(normalized, elem) if compute != elem else normalized


def negative_axis(rw: "Rewriter", x: str, axis: int) -> int | str:
    """AXIS counted from the end (-1 is the last), as normalizations over ``range(axis, 0)``
    need it; a reason when a non-negative axis meets an input of unknown rank."""
    if axis < 0:
        return axis
    rank = rw.rank(x)
    if rank is None:
        return f"axis={axis} needs the input rank, which shape inference did not find"
    return axis - rank


def residual_sum(em: "Emitter", x: str, skip: str, bias: str, out: str | None) -> str:
    """``x + skip (+ bias)``, the input of onnxruntime's Skip*LayerNormalization, written to OUT
    (their optional input_skip_bias_sum output) when given."""
    total = em.op("Add", [x, skip], None if bias else out)
    return em.op("Add", [total, bias], out) if bias else total


def scale_shift(em: "Emitter", x: str, scale: str, bias: str, out: str | None = None) -> str:
    """x * scale + bias, or x * scale when ``bias`` is empty (an optional input left out):
    the affine step after a normalization."""
    scaled = em.op("Mul", [x, scale], None if bias else out)
    return em.op("Add", [scaled, bias], out) if bias else scaled


def clamp(em: "Emitter", x: str, low: float, high: float, elem: int, use_clip: bool, out: str | None = None) -> str:
    """min(max(x, low), high): one Clip when the profile registers Clip at the model opset,
    else Max then Min against scalar constants (registered at every opset 8-18)."""
    if use_clip:
        return em.clip(x, low, high, elem, out)
    floor = em.op("Max", [x, em.scalar(low, elem, "low")])
    return em.op("Min", [floor, em.scalar(high, elem, "high")], out)


def rms_normalize(em: "Emitter", x: str, axes: Sequence[int], epsilon: float, elem: int, stash: int | None = None,
                  inv_rms_out: str | None = None) -> str:
    """x / sqrt(mean(x * x) + epsilon) over ``axes`` (keepdims), computed in ``stash`` type.

    The sequence of the ONNX RMSNormalization function body: Mul, ReduceMean, Add epsilon,
    Sqrt, Div. ``inv_rms_out`` names the optional 1/rms output (stash type, keepdims shape).
    """
    compute = stash if stash is not None else elem
    xs = em.cast(x, compute) if compute != elem else x
    mean_square = em.reduce("ReduceMean", em.op("Mul", [xs, xs]), axes, 1)
    rms = em.op("Sqrt", [em.op("Add", [mean_square, em.scalar(epsilon, compute, "epsilon")])])
    if inv_rms_out:
        em.op("Reciprocal", [rms], inv_rms_out)
    normalized = em.op("Div", [xs, rms])
    return em.cast(normalized, elem) if compute != elem else normalized


# The activations onnxruntime fuses into FusedConv/FusedGemm, with the names of their
# parameters in order (FusedConv lists them in ``activation_params``, FusedGemm in
# ``activation_alpha``/``activation_beta``/``activation_gamma``).
FUSED_ACTIVATIONS: dict[str, tuple[str, ...]] = {
    "Relu": (),
    "Tanh": (),
    "Sigmoid": (),
    "Silu": (),
    "Softsign": (),
    "Softplus": (),
    "LeakyRelu": ("alpha",),
    "Elu": ("alpha",),
    "ThresholdedRelu": ("alpha",),
    "Clip": ("min", "max"),
    "HardSigmoid": ("alpha", "beta"),
    "Selu": ("alpha", "gamma"),
}


def activation(em: "Emitter", x: str, kind: str, params: "Mapping[str, float]", elem: int,
               out: str | None = None) -> str:
    """The standard op(s) of a fused activation ``kind``; ``params`` by name (see FUSED_ACTIVATIONS).

    A parameter left out takes the standard op's default. Silu is written ``x * Sigmoid(x)``
    (the standard domain has no Silu before opset 24), Clip as a Clip with the bounds the
    opset wants (both bounds needed). Raises Unsupported for other kinds.
    """
    from atccheck.passes._rewrite import Unsupported

    names = FUSED_ACTIVATIONS.get(kind)
    if names is None:
        raise Unsupported(f"activation '{kind}' is not one onnxruntime fuses")
    if kind == "Silu":
        return em.op("Mul", [x, em.op("Sigmoid", [x])], out)
    if kind == "Clip":
        if "min" not in params or "max" not in params:
            raise Unsupported("a fused Clip without both bounds")
        return em.clip(x, float(params["min"]), float(params["max"]), elem, out)
    attrs = {name: float(params[name]) for name in names if name in params}
    return em.op(kind, [x], out, "", **attrs)  # "": the default domain, given so no attribute can fill it
