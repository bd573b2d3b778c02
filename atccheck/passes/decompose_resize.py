"""decompose-resize: a Resize at static sizes as MatMul by its constant interpolation matrices."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from atccheck.passes._graph import np_dtype
from atccheck.passes._interpolation import COORDINATE_MODES, MODES, NEAREST_MODES, AxisMap, AxisResize, axis_matrix
from atccheck.passes._rewrite import Emitter, NodeRewrite, Rewriter, Site
from atccheck.passes.base import FixLink, register_pass


@dataclass(frozen=True)
class Limit:
    elements: int
    reason: str


# Largest interpolation matrix written, in elements, and why: past it the rewrite is not worth it.
MATRIX_LIMIT = Limit(
    1 << 22,
    "an out x in matrix past 4,194,304 elements (16 MiB in float32) weighs more than most models' layers, and its "
    "MatMul reads every input sample for each output sample where Resize reads 1 to 4")


@register_pass
class DecomposeResize(NodeRewrite):
    """Rewrite a Resize that ATC refuses, ignores part of, or sends to AI CPU, as MatMul.

    At static sizes a Resize is linear in its data, axis by axis: each output line along a
    resized axis is a fixed weighted sum of the input line, so an image resize is
    ``Y = A_h X A_w^T`` with constant matrices, in every mode. ``_interpolation.axis_matrix``
    builds ``A`` (``out x in``, float64, cast to the input's float type) from the ONNX
    definition (opsets 11-19): the coordinate transformation (``half_pixel``,
    ``half_pixel_symmetric``, ``pytorch_half_pixel``, ``align_corners``, ``asymmetric``,
    ``tf_half_pixel_for_nn``, ``tf_crop_and_resize`` with its ``roi``), computed in float32 as
    onnxruntime does (a nearest rounding that falls on x.5 depends on the precision); then
    ``nearest`` with its ``nearest_mode``, or the ``linear`` / ``cubic`` kernel
    (``cubic_coeff_a``), stretched by ``1/scale`` and normalised under ``antialias`` when
    downscaling; taps outside the input taken at the edge, or with ``exclude_outside`` left
    out and the rest renormalised. ``tf_crop_and_resize`` rows outside the input add
    ``extrapolation_value``. The last axis becomes ``MatMul(X, A_w^T)``, the one before it
    ``MatMul(A_h, X)``; an axis the node leaves as it is costs nothing. The note gives each
    matrix's size (``8x64 and 64x8: 1,024 constant elements (4.0 KiB)``).

    It rewrites the Resize nodes whose attr-out-of-range (a mode or coordinate mode the page
    refuses: ``cubic``, ...), attr-ignored (``antialias``, ``nearest_mode`` the plugin drops)
    or aicpu-fallback (``linear`` and ``cubic`` run on AI CPU: Resize's AI Core
    check_supported accepts only nearest) finding names it, except where the only finding is
    a ``half_pixel`` mode, which names use-pytorch-half-pixel (a rename, exact). Exact up to
    float rounding (each output sums its taps in another order): tolerance 1e-5 + 1e-5·|x|.
    Left with a note: shapes not static, scales or sizes not constant, a resized axis other
    than the last two (N or C, a 5-D depth), opsets before 11, and a matrix past 4,194,304
    elements (``MATRIX_LIMIT``: 16 MiB in float32 outweighs most layers, and its MatMul reads
    every input sample per output sample where Resize reads 1 to 4). A nearest matrix
    multiplies infinities by 0 (NaN) where Resize would copy them.

    Tested against onnx's reference evaluator for linear and cubic (every coordinate mode,
    ``exclude_outside``, ``antialias``, up, down, same size) and against onnxruntime for
    nearest (which computes coordinates in float32; the reference evaluator computes some in
    float64). onnxruntime differs from both on ``tf_crop_and_resize`` with a roi and on a
    nearest ``floor`` resize to length 1; there the step's verification decides.
    """

    name = "decompose-resize"
    stage = "decompose"
    answers = (
        FixLink("aicpu-fallback", "Resize"),
        FixLink("attr-ignored", "Resize"),
        # a half_pixel coordinate mode names use-pytorch-half-pixel: its link, which has a condition, comes
        # before this one in the index
        FixLink("attr-out-of-range", "Resize"),
    )
    op_types: ClassVar[frozenset[str] | None] = frozenset({"Resize"})
    safe = True
    tolerance = 1e-5
    rtol = 1e-5
    counted = "Resize node(s)"

    def rewrite(self, rw: Rewriter, site: Site) -> Emitter | str | None:
        import numpy as np

        if rw.opset < 11:
            return "Resize before opset 11 has no coordinate_transformation_mode to build the matrices from"
        x = site.input(0)
        elem = rw.float_type(x)
        shape_in, shape_out = rw.static_shape(x), rw.static_shape(site.output(0))
        if shape_in is None or shape_out is None or len(shape_in) != len(shape_out):
            return "the input and output shapes are not static (give --input-shape)"
        rank = len(shape_in)
        mode = site.attr("mode", "nearest")
        coordinate_mode = site.attr("coordinate_transformation_mode", "half_pixel")
        nearest_mode = site.attr("nearest_mode", "round_prefer_floor")
        if mode not in MODES or coordinate_mode not in COORDINATE_MODES or nearest_mode not in NEAREST_MODES:
            return f"mode {mode!r} / coordinate mode {coordinate_mode!r} / nearest mode {nearest_mode!r} is not ONNX's"
        axes = [a % rank for a in site.attr("axes", list(range(rank)))]
        scales = self._const(rw, site.input(2))
        sizes = self._const(rw, site.input(3))
        if (scales is None or not scales.size) and (sizes is None or not sizes.size):
            return "neither scales nor sizes is a constant"
        if scales is not None and scales.size:
            factors = [float(s) for s in scales]
        else:
            assert sizes is not None
            factors = [int(s) / shape_in[a] for s, a in zip(sizes, axes)]
            policy = site.attr("keep_aspect_ratio_policy", "stretch")
            if policy in ("not_larger", "not_smaller"):
                pick = min if policy == "not_larger" else max
                factors = [pick(factors)] * len(factors)
        roi = self._const(rw, site.input(1)) if coordinate_mode == "tf_crop_and_resize" else None
        if coordinate_mode == "tf_crop_and_resize" and (roi is None or roi.size != 2 * len(axes)):
            return "tf_crop_and_resize needs a constant roi with a start and an end per axis"
        maps: dict[int, AxisMap] = {}
        for k, axis in enumerate(axes):
            spec = AxisResize(
                shape_in[axis], shape_out[axis], factors[k], mode, coordinate_mode, nearest_mode,
                float(site.attr("cubic_coeff_a", -0.75)), bool(site.attr("exclude_outside", 0)),
                bool(site.attr("antialias", 0)),
                (float(roi[k]), float(roi[k + len(axes)])) if roi is not None else (0.0, 1.0))
            if spec.size_out * spec.size_in > MATRIX_LIMIT.elements:
                return (f"axis {axis} would need a {spec.size_out}x{spec.size_in} matrix, past the limit of "
                        f"{MATRIX_LIMIT.elements:,} elements: {MATRIX_LIMIT.reason}")
            built = axis_matrix(spec)
            if not built.identity:
                maps[axis] = built
        far = [a for a in maps if a < rank - 2]
        if far:
            return f"it resizes axis {far[0]} of a rank-{rank} input; only the last two become MatMul"
        dtype = np_dtype(elem)
        em = Emitter(rw, site)
        value = x
        described = []
        if rank - 1 in maps:
            value = em.op("MatMul", [value, em.const(maps[rank - 1].matrix.T.astype(dtype), "interp_w")])
            described.append("x".join(map(str, maps[rank - 1].matrix.T.shape)))
        if rank - 2 in maps:
            value = em.op("MatMul", [em.const(maps[rank - 2].matrix.astype(dtype), "interp_h"), value])
            described.append("x".join(map(str, maps[rank - 2].matrix.shape)))
        extrapolation = float(site.attr("extrapolation_value", 0.0))
        outside = [maps[a].outside if a in maps else np.zeros(shape_out[a], bool) for a in (rank - 2, rank - 1)
                   if a >= 0]
        if extrapolation and any(o.any() for o in outside):
            mask = outside[0][:, None] | outside[1][None, :] if len(outside) == 2 else outside[0]
            value = em.op("Add", [value, em.const((mask * extrapolation).astype(dtype), "extrapolated")])
        em.finish(value, site.output(0))
        self.replaced.extend(i for i in site.node.input[1:] if i)
        elements = sum(m.matrix.size for m in maps.values())
        rw.notes.append(
            f"Resize '{site.label}' ({mode}, {coordinate_mode}) as MatMul by "
            + (" and ".join(described) or "no matrix (it copies its input)")
            + f": {elements:,} constant elements ({elements * np.dtype(dtype).itemsize / 1024:.1f} KiB)")
        return em

    @staticmethod
    def _const(rw: Rewriter, name: str):
        value = rw.const_value(name, limit=1 << 12)
        return None if value is None else value.reshape(-1)
