"""decompose-grid-sample: 2-D GridSample into GatherElements arithmetic (opset 16 and 20 mode names)."""

from __future__ import annotations

from typing import ClassVar

from atccheck.passes._rewrite import Decomposition, Emitter, Rewriter, Site
from atccheck.passes.base import FixLink, register_pass

# GridSample-16 names its modes bilinear/nearest/bicubic, GridSample-20 linear/nearest/cubic.
LINEAR_MODES = ("bilinear", "linear")
NEAREST_MODES = ("nearest",)
CUBIC_MODES = ("bicubic", "cubic")
CUBIC_ALPHA = -0.75  # the cubic convolution coefficient onnxruntime's GridSample uses (Keys)
PADDING_MODES = ("zeros", "border", "reflection")


@register_pass
class DecomposeGridSample(Decomposition):
    """Rewrite 2-D GridSample (bilinear or nearest) as Gather arithmetic on the flattened image.

    GridSample-20 has no earlier definition with the same mode names and no converter
    adapter, so a model at opset 20+ cannot be lowered while it holds one; CANN 5.0/6.0
    register no GridSample at all. Applies where the profile lacks GridSample at the model
    opset, or a finding asks. The grid's normalized (x, y) become pixel coordinates
    (``align_corners`` 1: ``(g + 1) / 2 * (size - 1)``, 0: ``((g + 1) * size - 1) / 2``);
    ``bilinear``/``linear`` weighs the four neighbour pixels (Floor), ``nearest`` takes the
    nearest one (Round, halves to even), ``bicubic``/``cubic`` weighs the 4 x 4 around by
    Keys' cubic convolution (alpha -0.75, as onnxruntime). A neighbour outside the image reads 0 (``zeros``),
    the nearest edge pixel (``border``), or its mirror image (``reflection``: about the corner
    pixel centres with align_corners 1, the image edges with 0), as onnxruntime's kernel reads
    each neighbour. Each is read with GatherElements from the [N, C, H*W] image. Needs
    static input and grid shapes. Left with a note: inputs other than 4-D.
    Exact up to float rounding.
    """

    name = "decompose-grid-sample"
    stage = "decompose"
    answers = (
        FixLink("unsupported-op", "GridSample"),
        FixLink("opset-not-registered", "GridSample"),
        FixLink("attr-out-of-range", "GridSample", when={"attr": ("mode", "padding_mode", "align_corners")}),
        FixLink("attr-out-of-range", "GridSample", named=False),
    )
    op_types: ClassVar[frozenset[str] | None] = frozenset({"GridSample"})
    safe = True
    tolerance = 1e-5
    rtol = 1e-5
    counted = "GridSample node(s)"

    def rewrite(self, rw: Rewriter, site: Site) -> Emitter | str:
        return grid_sample_rewrite(rw, site, site.attr("mode", "bilinear" if rw.opset < 20 else "linear"))


def grid_sample_rewrite(rw: Rewriter, site: Site, mode: str) -> Emitter | str:
    """The 2-D GridSample of (X, grid) with the node's padding_mode and align_corners."""
    from onnx import TensorProto

    x, grid = site.input(0), site.input(1)
    elem = rw.float_type(x)
    padding = site.attr("padding_mode", "zeros")
    align = bool(site.attr("align_corners", 0))
    if mode not in LINEAR_MODES + NEAREST_MODES + CUBIC_MODES:
        return f"mode '{mode}'"
    if padding not in PADDING_MODES:
        return f"padding_mode '{padding}'"
    x_shape, g_shape = rw.static_shape(x), rw.static_shape(grid)  # None unless known and all int
    if x_shape is None or g_shape is None:
        return "the input and grid shapes must be static (give --input-shape)"
    if len(x_shape) != 4:
        return f"a {len(x_shape)}-D input (only 4-D [N, C, H, W] is rewritten)"
    n, c, h, w = x_shape
    _, ho, wo, _ = g_shape
    em = Emitter(rw, site)
    flat = em.reshape(x, [n, c, h * w])
    if rw.elem_type(grid) != elem:
        grid = em.cast(grid, elem)
    gx = em.reshape(em.slice(grid, [0], [1], [3]), [n, ho * wo])
    gy = em.reshape(em.slice(grid, [1], [2], [3]), [n, ho * wo])
    ix = pixel_coordinate(em, gx, w, align, elem)
    iy = pixel_coordinate(em, gy, h, align, elem)
    corners: list[tuple[str, str, str | None]]  # (x, y, weight); no weight: the one nearest pixel
    if mode in NEAREST_MODES:
        corners = [(em.op("Round", [ix]), em.op("Round", [iy]), None)]
    elif mode in CUBIC_MODES:  # the 4 x 4 pixels around, weighed by cubic convolution of the offsets
        x0, y0 = em.op("Floor", [ix]), em.op("Floor", [iy])
        xs = [em.op("Add", [x0, em.scalar(float(k), elem, "offset")]) for k in (-1, 0, 1, 2)]
        ys = [em.op("Add", [y0, em.scalar(float(k), elem, "offset")]) for k in (-1, 0, 1, 2)]
        wx = cubic_weights(em, em.op("Sub", [ix, x0]), elem)
        wy = cubic_weights(em, em.op("Sub", [iy, y0]), elem)
        corners = [(xs[j], ys[i], em.op("Mul", [wx[j], wy[i]])) for i in range(4) for j in range(4)]
    else:
        x0, y0 = em.op("Floor", [ix]), em.op("Floor", [iy])
        one = em.scalar(1.0, elem, "one")
        x1, y1 = em.op("Add", [x0, one]), em.op("Add", [y0, one])
        wx1, wy1 = em.op("Sub", [ix, x0]), em.op("Sub", [iy, y0])
        wx0, wy0 = em.op("Sub", [x1, ix]), em.op("Sub", [y1, iy])
        corners = [(x0, y0, em.op("Mul", [wx0, wy0])), (x1, y0, em.op("Mul", [wx1, wy0])),
                   (x0, y1, em.op("Mul", [wx0, wy1])), (x1, y1, em.op("Mul", [wx1, wy1]))]
    total: str | None = None
    for cx, cy, weight in corners:
        xc = fold_index(em, cx, w, align, padding, elem)
        yc = fold_index(em, cy, h, align, padding, elem)
        if padding == "zeros":  # a neighbour outside the image reads 0
            inside = em.op("Mul", [em.cast(em.op("Equal", [cx, xc]), elem), em.cast(em.op("Equal", [cy, yc]), elem)])
            weight = inside if weight is None else em.op("Mul", [weight, inside])
        index = em.cast(em.op("Add", [em.op("Mul", [yc, em.scalar(float(w), elem, "width")]), xc]),
                        TensorProto.INT64)
        index = em.op("Expand", [em.unsqueeze(index, [1]), em.ints([n, c, ho * wo], "gather_shape")])
        value = em.op("GatherElements", [flat, index], axis=2)
        if weight is not None:
            value = em.op("Mul", [value, em.unsqueeze(weight, [1])])
        total = value if total is None else em.op("Add", [total, value])
    assert total is not None  # every mode reads at least one neighbour
    em.reshape(total, [n, c, ho, wo], out=site.output(0))
    return em


def cubic_weights(em: Emitter, t: str, elem: int) -> list[str]:
    """Keys' cubic convolution weights of the pixels at offsets -1, 0, 1, 2 from floor(x), for
    t = x - floor(x) in [0, 1), alpha -0.75, in the polynomial form onnxruntime evaluates."""
    a = CUBIC_ALPHA

    def c(value: float) -> str:
        return em.scalar(value, elem, "cubic")

    def outer(d: str) -> str:  # ((a d - 5a) d + 8a) d - 4a, for d = distance in [1, 2)
        inner = em.op("Add", [em.op("Mul", [em.op("Sub", [em.op("Mul", [d, c(a)]), c(5 * a)]), d]), c(8 * a)])
        return em.op("Sub", [em.op("Mul", [inner, d]), c(4 * a)])

    def near(d: str) -> str:  # ((a + 2) d - (a + 3)) d d + 1, for d = distance in [0, 1]
        inner = em.op("Sub", [em.op("Mul", [d, c(a + 2)]), c(a + 3)])
        return em.op("Add", [em.op("Mul", [em.op("Mul", [inner, d]), d]), c(1.0)])

    one_minus = em.op("Sub", [c(1.0), t])
    return [outer(em.op("Add", [t, c(1.0)])), near(t), near(one_minus), outer(em.op("Sub", [c(2.0), t]))]


def pixel_coordinate(em: Emitter, g: str, size: int, align: bool, elem: int) -> str:
    """Normalized grid values [-1, 1] to pixel coordinates, in the order onnxruntime computes them."""
    shifted = em.op("Add", [g, em.scalar(1.0, elem, "one")])
    if align:  # (g + 1) / 2 * (size - 1)
        return em.op("Mul", [em.op("Mul", [shifted, em.scalar(0.5, elem, "half")]),
                             em.scalar(float(size - 1), elem, "extent")])
    # ((g + 1) * size - 1) / 2
    scaled = em.op("Mul", [shifted, em.scalar(float(size), elem, "size")])
    return em.op("Mul", [em.op("Sub", [scaled, em.scalar(1.0, elem, "one")]), em.scalar(0.5, elem, "half")])


def fold_index(em: Emitter, index: str, size: int, align: bool, padding: str, elem: int) -> str:
    """A whole-pixel index outside the image brought back in: clamped (border), or mirrored
    about the corner pixel centres (align_corners 1) or the image edges (0) and clamped."""
    if padding == "reflection" and size > 1:
        low, high = (0.0, size - 1.0) if align else (-0.5, size - 0.5)
        span = high - low
        # a triangle wave of period 2*span: low + span - |(|x - low| mod 2 span) - span|; exact on whole
        # and half numbers
        distance = em.op("Abs", [em.op("Sub", [index, em.scalar(low, elem, "low")])])
        folded = em.op("Mod", [distance, em.scalar(2 * span, elem, "period")], fmod=1)
        index = em.op("Sub", [em.scalar(low + span, elem, "top"),
                              em.op("Abs", [em.op("Sub", [folded, em.scalar(span, elem, "span")])])])
    return em.clip(index, 0.0, float(size - 1), elem)
