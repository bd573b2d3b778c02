"""decompose-affine-grid: AffineGrid (opset 20) into a constant base grid and a MatMul."""

from __future__ import annotations

from typing import ClassVar

from atccheck.passes._rewrite import Decomposition, Emitter, Rewriter, Site
from atccheck.passes.base import FixLink, register_pass


@register_pass
class DecomposeAffineGrid(Decomposition):
    """Rewrite AffineGrid (opset 20) as MatMul of a constant base grid by the transposed ``theta``.

    AffineGrid has no earlier version, so convert-opset cannot lower a model that holds
    one. Applies where the profile does not register it at the model opset, or a finding
    asks. The ONNX definition: the base grid holds, for each output pixel, its normalized
    coordinates (x, y[, z]) and a 1 (``align_corners`` 1: ``linspace(-1, 1, n)``; 0: pixel
    centres ``(2 i + 1) / n - 1``); the grid is ``base @ theta^T``, reshaped to
    [N, H, W, 2] (2-D, ``theta`` [N, 2, 3]) or [N, D, H, W, 3] (3-D, ``theta`` [N, 3, 4]).
    The base grid is a constant, so ``size`` must be constant (or the output shape static).
    Left with a note: ``align_corners`` 1 with an axis of one pixel, whose coordinate the
    ONNX reference (-1) and onnxruntime (1) disagree on. Exact up to float rounding.
    """

    name = "decompose-affine-grid"
    stage = "decompose"
    answers = (
        FixLink("opset-not-registered", "AffineGrid"),
        FixLink("unsupported-op", "AffineGrid", named=False),
    )
    op_types: ClassVar[frozenset[str] | None] = frozenset({"AffineGrid"})
    safe = True
    tolerance = 1e-5
    rtol = 1e-5
    counted = "AffineGrid node(s)"

    def rewrite(self, rw: Rewriter, site: Site) -> Emitter | str:
        import numpy as np

        theta, size = site.input(0), site.input(1)
        elem = rw.float_type(theta)
        size_value = rw.const_value(size)
        sizes: list[int]
        if size_value is not None:
            sizes = [int(v) for v in np.asarray(size_value).reshape(-1)]
        else:
            out = rw.static_shape(site.output(0))
            if out is None:
                return "size is computed at run time and the output shape is unknown"
            sizes = [out[0], 0, *out[1:-1]]
        if len(sizes) not in (4, 5):
            return f"size has {len(sizes)} values (4 for 2-D, 5 for 3-D)"
        n, spatial = sizes[0], sizes[2:]  # (H, W) or (D, H, W)
        align = bool(site.attr("align_corners", 0))
        if align and 1 in spatial:
            # linspace(-1, 1, 1): the ONNX reference gives -1, onnxruntime 1.32 gives 1
            return "align_corners=1 with an axis of one pixel (runtimes disagree on its coordinate)"
        axes = [coordinates(s, align) for s in reversed(spatial)]  # x first, as the grid stores it
        mesh = np.meshgrid(*axes, indexing="ij")  # index order x, y[, z]
        base = np.stack([m.transpose(tuple(reversed(range(len(spatial))))) for m in mesh] + [np.ones(spatial)], -1)
        em = Emitter(rw, site)
        dtype = np.float64 if elem == 11 else np.float32
        base_value = em.const(base.reshape(-1, len(spatial) + 1).astype(dtype), "base_grid")
        if dtype == np.float32 and elem != 1:
            base_value = em.cast(base_value, elem)
        grid = em.op("MatMul", [base_value, em.transpose(theta, [0, 2, 1])])
        em.reshape(grid, [n, *spatial, len(spatial)], out=site.output(0))
        return em


def coordinates(count: int, align: bool):
    """Normalized coordinates of ``count`` pixels along one axis."""
    import numpy as np

    if align:
        return np.linspace(-1.0, 1.0, count)
    return (2.0 * np.arange(count) + 1.0) / count - 1.0
