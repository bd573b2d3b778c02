"""split-large-kernel-conv: a Conv whose kernel exceeds the chip's limit, as a sum of smaller Convs."""

from __future__ import annotations

import itertools
import sys
from typing import TYPE_CHECKING, ClassVar

from atccheck.passes._rewrite import Emitter, Rewriter, Site, Unsupported
from atccheck.passes.base import FixLink, FixPass, PassContext, PassResult, register_pass

if TYPE_CHECKING:  # pragma: no cover
    import onnx

Tile = tuple[int, int]  # (first kernel tap, number of taps)
SLICE_TO_END = 2**63 - 1  # Slice end meaning "to the last element"


class TileMayBeEmpty(Exception):
    """With the input size unknown, a tile's window could hold padding only (empty Slice)."""


@register_pass
class SplitLargeKernelConv(FixPass):
    """Split an oversized Conv kernel into tiles and add up the tile convolutions.

    Applies to 1-D and 2-D standard ``Conv`` nodes (ATC runs 1-D as 2-D with kernel
    [1, k]) with a kernel height or width above the chip's limit: ``conv_filter_hw_max``
    (255), or ``conv_filter_hw_max_fixpipe`` (511) on SoCs with fixpipe (limits.json, from
    CANN's conv_compute.py). Beyond it, static-shape ATC compiles the slow l0a_dma path and
    dynamic shape fails with E60011. The weight is cut along each oversized axis into near
    equal tiles of at most the limit; tile j starting at tap k0 convolves the input window
    that starts k0 x dilation later, cut out with Slice, so every tile conv has the original
    output size. Strides, dilations and group are kept; explicit and auto_pad padding
    become per-tile pads, never larger than the original ones; a tile that would read only
    padding is dropped; the bias goes to one tile. With the input size of a split axis
    unknown (dynamic length), windows end relative to the input's end, and if a tile could
    then read only padding the axis is zero-padded once with a Pad node first. Needs a
    constant weight (``fix`` loads weights; the input file is never written); SAME padding
    with a stride above 1 needs static sizes. 3-D Conv is left untouched: no fact gives a
    Conv3D kernel limit. Exact up to float rounding: the sum is reordered (tolerance 1e-4
    absolute plus 1e-4 relative).
    """

    name = "split-large-kernel-conv"
    stage = "split-kernels"
    answers = (
        FixLink("kernel-out-of-range", "Conv", has=("kernel_hw",)),
        FixLink("kernel-out-of-range", "Conv", named=False),
    )
    op_types: ClassVar[frozenset[str] | None] = frozenset({"Conv"})
    safe = True
    tolerance = 1e-4
    rtol = 1e-4

    def run(self, model: "onnx.ModelProto", ctx: PassContext) -> PassResult:
        from atccheck.tables import tables

        key = "conv_filter_hw_max_fixpipe" if ctx.target.soc.fixpipe else "conv_filter_hw_max"
        limit = tables().limit(key)
        rw = Rewriter(model, ctx, self.name)
        weights: list[str] = []

        def rewrite(site: Site) -> Emitter | str | None:
            kernel = list(site.attr("kernel_shape") or [])
            info = rw.info(site.input(1))
            if not kernel and info is not None and info.shape is not None:
                kernel = [d for d in info.shape[2:]]
            if not kernel or all(isinstance(k, int) and k <= limit for k in kernel):
                return None
            if len(kernel) > 2:
                return f"a {len(kernel)}-D Conv: no fact gives the Conv3D kernel limit"
            weight = rw.const_value(site.input(1), limit=sys.maxsize)
            if weight is None:
                return "its weight is not a constant with loaded data"
            emitter = _split(rw, site, weight, limit)
            weights.append(site.input(1))
            return emitter

        rw.run(rewrite, self.op_types or ())
        rw.prune_initializers(weights)
        return rw.result(f"Conv node(s) with kernels above {key} ({limit})")


def _split(rw: Rewriter, site: Site, weight, limit: int) -> Emitter:
    rank = weight.ndim - 2
    kernel = list(weight.shape[2:])
    strides = list(site.attr("strides") or [1] * rank)
    dilations = list(site.attr("dilations") or [1] * rank)
    group = int(site.attr("group", 1))
    sizes = rw.spatial_sizes(site.input(0), rank)
    split = [k > limit for k in kernel]
    pads = _pads(site, rank, kernel, strides, dilations, sizes)

    axes: list[list[tuple[Tile, tuple[int, int] | None, tuple[int, int]]]] = []
    padded = [0] * (2 * rank)  # padding applied once, up front, with a Pad node
    for a in range(rank):
        if not split[a]:
            axes.append([((0, kernel[a]), None, (pads[a], pads[a + rank]))])
            continue
        tiles = _tiles(kernel[a], limit)
        try:
            options = [_window(t, kernel[a], dilations[a], pads[a], pads[a + rank], sizes[a]) for t in tiles]
        except TileMayBeEmpty:
            # size unknown: pad first, then every tile provably reads part of the padded input
            padded[a], padded[a + rank] = pads[a], pads[a + rank]
            options = [_window(t, kernel[a], dilations[a], 0, 0, sizes[a]) for t in tiles]
        axes.append([o for o in options if o is not None])
    if not all(axes):
        raise Unsupported("every kernel tile reads only padding")
    em = Emitter(rw, site)
    padded_input = site.input(0)
    if any(padded):
        padded_input = em.pad(padded_input, [0, 0, *padded[:rank], 0, 0, *padded[rank:]])
    partials: list[str] = []
    for combo in itertools.product(*axes):
        cut = tuple(slice(k0, k0 + taps) for (k0, taps), _, _ in combo)
        windows = [(2 + a, w) for a, (_, w, _) in enumerate(combo) if w is not None]
        source = padded_input
        if windows:
            source = em.slice(source, [w[0] for _, w in windows], [w[1] for _, w in windows], [a for a, _ in windows])
        tile = (slice(None), slice(None), *cut)
        inputs = [source, em.const(weight[tile], "weight")]
        if site.input(2) and not partials:
            inputs.append(site.input(2))
        pads_begin = [p[0] for _, _, p in combo]
        pads_end = [p[1] for _, _, p in combo]
        partials.append(em.op("Conv", inputs, None, kernel_shape=[taps for (_, taps), _, _ in combo],
                              strides=strides, dilations=dilations, group=group, pads=pads_begin + pads_end))
    total = partials[0]
    for k, part in enumerate(partials[1:], start=2):
        total = em.op("Add", [total, part], site.output(0) if k == len(partials) else None)
    if len(partials) == 1:
        em.finish(total, site.output(0))
    return em


def _window(tile: Tile, taps: int, dilation: int, pad_begin: int, pad_end: int, length):
    """The input window and pads of one kernel tile, so it yields the original output size.

    Tile (k0, t) reads the padded input from k0 * dilation on, and stops (taps - k0 - t) *
    dilation before its end, which gives it exactly the original output length. In input
    coordinates that is [k0*d - pad_begin, length + pad_end - (taps-k0-t)*d): the part
    outside [0, length) becomes the tile's own padding. With ``length`` unknown the end is
    written relative to the end (a negative Slice end), and the tile must provably read
    input for the smallest length the original Conv accepts, else TileMayBeEmpty. None: the
    tile reads only padding (it adds zero).
    """
    k0, t = tile
    start = k0 * dilation - pad_begin
    from_end = pad_end - (taps - k0 - t) * dilation  # window end minus the input length
    low = max(0, start)
    if isinstance(length, int):
        if length <= 0:
            raise Unsupported("its input is empty")
        high = min(length, length + from_end)
        if high <= low:
            return None
        window = None if (low, high) == (0, length) else (low, high)
        return tile, window, (low - start, length + from_end - high)
    shortest = max(1, (taps - 1) * dilation + 1 - pad_begin - pad_end)
    if min(shortest, shortest + from_end) <= low:
        raise TileMayBeEmpty()
    end = from_end if from_end < 0 else SLICE_TO_END
    window = None if (low, end) == (0, SLICE_TO_END) else (low, end)
    return tile, window, (low - start, max(0, from_end))


def _tiles(taps: int, limit: int) -> list[Tile]:
    """Near-equal tiles of at most ``limit`` taps covering 0..taps-1."""
    count = -(-taps // limit)
    base, extra = divmod(taps, count)
    tiles, start = [], 0
    for j in range(count):
        size = base + (1 if j < extra else 0)
        tiles.append((start, size))
        start += size
    return tiles


def _pads(site: Site, rank: int, kernel: list[int], strides: list[int], dilations: list[int], sizes: list) -> list[int]:
    """Explicit [begin..., end...] pads; auto_pad SAME_* computed from static input sizes."""
    auto_pad = site.attr("auto_pad", "NOTSET")
    if auto_pad in ("NOTSET", ""):
        return list(site.attr("pads") or [0] * (2 * rank))
    if auto_pad == "VALID":
        return [0] * (2 * rank)
    begin, end = [], []
    for a in range(rank):
        length = sizes[a]
        if strides[a] == 1:
            total = (kernel[a] - 1) * dilations[a]  # whatever the input size
        elif not isinstance(length, int):
            raise Unsupported(f"auto_pad={auto_pad} with stride {strides[a]} needs static input sizes")
        else:
            out = -(-length // strides[a])
            total = max(0, (out - 1) * strides[a] + (kernel[a] - 1) * dilations[a] + 1 - length)
        small, large = total // 2, total - total // 2
        begin.append(small if auto_pad == "SAME_UPPER" else large)
        end.append(large if auto_pad == "SAME_UPPER" else small)
    return begin + end
