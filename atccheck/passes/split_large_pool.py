"""split-large-pool: a pool with kernel == stride that ATC runs on AI CPU, as a chain of smaller pools."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.passes._graph import consumers
from atccheck.passes._rewrite import Emitter, Rewriter, Site
from atccheck.passes.base import FixLink, FixPass, PassContext, PassResult, register_pass

if TYPE_CHECKING:  # pragma: no cover
    import onnx

    from atccheck.tables import Tables

POOLS = frozenset({"MaxPool", "AveragePool"})


@register_pass
class SplitLargePool(FixPass):
    """Replace a non-overlapping pool whose window sends it to AI CPU by a chain of smaller ones.

    Applies to 1-D and 2-D ``MaxPool`` and ``AveragePool`` nodes whose window is beyond the
    AI Core kernels (the conditions kernel-out-of-range reports, limits.json):
    MaxPool, and AveragePool under the 2022 plugins (CANN 6.0), with kH*kW above
    ``pool_aicpu_window_area`` (255) or a stride above ``pool_aicpu_stride`` (63): the
    plugin builds an AI CPU graph; AveragePool with a kernel side above
    ``avgpool_kernel_hw_max`` (255) that is not a global pool: AvgPoolV2 rejects it. It
    applies only when the pool tiles its input exactly: ``kernel_shape == strides``, no
    padding (pads all 0, or auto_pad VALID), dilations 1, ``ceil_mode`` 0 (or 1 when the
    static input sizes are multiples of the kernel), MaxPool's ``Indices`` output unused and
    ``storage_order`` 0. Then kH and kW are factored into stages (a_i, b_i) with
    a_i*b_i <= 255 and a_i, b_i <= 63, each stage a pool with kernel == stride == (a_i, b_i):
    the max of maxes, or the mean of means of equal-size blocks, over the same windows as
    the original (floor(floor(H/a1)/a2) = floor(H/(a1 a2))). Left untouched, with a note,
    when a prime factor of the kernel is above 63, or any condition above fails. Exact for
    MaxPool, exact up to float rounding for AveragePool.
    """

    name = "split-large-pool"
    stage = "split-kernels"
    answers = (
        FixLink("kernel-out-of-range", "MaxPool"),
        FixLink("kernel-out-of-range", "AveragePool"),
    )
    safe = True
    tolerance = 1e-5

    def run(self, model: "onnx.ModelProto", ctx: PassContext) -> PassResult:
        from atccheck.tables import tables

        tbl = tables()
        rw = Rewriter(model, ctx, self.name)
        profile = ctx.target.profile.id

        def rewrite(site: Site) -> Emitter | str | None:
            kernel = [int(k) for k in site.attr("kernel_shape") or []]
            if len(kernel) not in (1, 2):
                return None
            hw = [1, *kernel] if len(kernel) == 1 else kernel
            strides = [int(s) for s in site.attr("strides") or [1] * len(kernel)]
            sizes = rw.spatial_sizes(site.input(0), len(kernel))
            if not (_too_large(tbl, site.node.op_type, hw, strides, sizes, profile) or rw.requested_here(site)):
                return None
            reason = _not_tiling(rw, site, kernel, strides, sizes)
            if reason:
                return reason
            stages = factor(hw, tbl.limit("pool_aicpu_window_area"), tbl.limit("pool_aicpu_stride"))
            if stages is None:
                return f"kernel {hw[0]}x{hw[1]} has a prime factor above {tbl.limit('pool_aicpu_stride')}"
            em = Emitter(rw, site)
            value = site.input(0)
            for k, (a, b) in enumerate(stages):
                window = [a, b] if len(kernel) == 2 else [b]
                out = site.output(0) if k == len(stages) - 1 else None
                value = em.op(site.node.op_type, [value], out, kernel_shape=window, strides=window)
            return em

        rw.run(rewrite, POOLS)
        return rw.result("MaxPool/AveragePool node(s)")


def factor(hw: list[int], area_max: int, side_max: int) -> list[tuple[int, int]] | None:
    """Stages (a_i, b_i), products kH and kW, each a_i*b_i <= area_max and sides <= side_max."""
    rest_h, rest_w = hw
    stages = []
    while rest_h > 1 or rest_w > 1:
        best = max(
            ((a, b) for a in _divisors(rest_h, side_max) for b in _divisors(rest_w, side_max) if a * b <= area_max),
            key=lambda ab: (ab[0] * ab[1], -abs(ab[0] - ab[1])),
        )
        if best == (1, 1):
            return None
        stages.append(best)
        rest_h //= best[0]
        rest_w //= best[1]
    return stages


def _divisors(n: int, most: int) -> list[int]:
    return [d for d in range(1, min(n, most) + 1) if n % d == 0]


def _too_large(tbl: "Tables", op: str, hw: list[int], strides: list[int], sizes: list, profile: str) -> bool:
    """The conditions under which kernel-out-of-range reports the AI CPU path."""
    # the plugin builds an AI CPU graph for large windows
    aicpu_graph = bool(tbl.op_facts_for("pool-aicpu-graph", op, profile))
    too_large = hw[0] * hw[1] > tbl.limit("pool_aicpu_window_area") or max(strides) > tbl.limit("pool_aicpu_stride")
    if aicpu_graph and too_large:
        return True
    if op == "AveragePool" and max(hw) > tbl.limit("avgpool_kernel_hw_max"):
        spatial = [1, *sizes] if len(sizes) == 1 else sizes
        # a global pool is accepted; unknown sizes cannot be told from one (the rule is silent)
        return all(isinstance(n, int) for n in spatial) and spatial != hw
    return False


def _not_tiling(rw: Rewriter, site: Site, kernel: list[int], strides: list[int], sizes: list) -> str | None:
    """Why the pool is not a plain tiling of its input (None when it is)."""
    if strides != kernel:
        return f"strides {strides} differ from kernel_shape {kernel}: windows overlap or skip input"
    auto_pad = site.attr("auto_pad", "NOTSET")
    if auto_pad not in ("NOTSET", "VALID", "") or any(site.attr("pads") or []):
        return "it pads its input"
    if any(d != 1 for d in site.attr("dilations") or []):
        return "it has dilations"
    if int(site.attr("ceil_mode", 0)) and not all(isinstance(n, int) and n % k == 0 for n, k in zip(sizes, kernel)):
        return "ceil_mode=1 with input sizes that are not known multiples of the kernel"
    if site.node.op_type == "MaxPool":
        if int(site.attr("storage_order", 0)):
            return "storage_order=1"
        if site.output(1) and consumers(rw.model, site.output(1)):
            return "its Indices output is used"
    return None
