"""kernel-out-of-range: conv and pool windows, strides, pads and dilations beyond ATC's kernel limits."""

from __future__ import annotations

from collections.abc import Iterable

from atccheck.context import NodeContext
from atccheck.findings import Finding, Severity
from atccheck.rules._attrs import kernel_spatial, reaches_plugin
from atccheck.rules.base import Rule, register
from atccheck.tables import OpFact, Tables

POOL_HINT = (
    "split the window into a chain of smaller pools (atccheck fix: split-large-pool, when kernel == stride and "
    "there is no padding), or accept the AI CPU cost"
)


@register
class KernelOutOfRange(Rule):
    """A Conv or pool window, stride, pad or dilation is beyond what ATC's kernels handle well.

    ## What it does
    Conv: reads the kernel H/W from ``kernel_shape`` (else from the weight's dims, never its
    data; 1-D runs as 2-D with H=1) and compares it with ``conv_filter_hw_max`` (511 on
    fixpipe chips); compares strides, pads and dilations with ``conv_stride_max``,
    ``conv_pad_max``, ``conv_dilation_max`` and ``conv_param_hard_max``. MaxPool: a window
    area above ``pool_aicpu_window_area`` or a stride above ``pool_aicpu_stride``, and a
    kernel above ``pool_kernel_max``. The MaxPool window threshold is the plugin source's
    ``kH*kW > 255`` (the published page says ``> 256``; the plugin is what builds the AI CPU
    graph, so a 16x16 window counts). AveragePool (2-D, AvgPoolV2): where the chip's
    AvgPoolV2 config sets ``check_supported``, the two rejections of ``avg_pool_v2.py`` (a
    non-global side above ``avgpool_kernel_hw_max``; ``kH*kW`` above
    ``avgpool_window_area_max`` with a side above ``avgpool_kernel_side_max`` and an output
    of H != 1, W == 1) send it to AI CPU (an error without an AI CPU kernel); on families
    whose config does not set the flag, check_supported never runs. Then, for the profiles
    the 9.0 pages speak for, the published page's rule: a non-global window with a side
    above 255 or ``kH*kW`` above ``avgpool_page_window_area_max`` (256) runs on AI CPU. For
    the 2022 plugins, AveragePool takes the same window/stride AI CPU path as MaxPool.

    ## Why
    In static shape, Conv2D beyond the kernel limits still compiles, through the slow
    ``l0a_dma`` im2col path; in dynamic shape a kernel above the limit fails with E60011,
    as does any value above 2^32-1. The MaxPool plugin builds a TransposeD/PadV2/MaxPool
    (NHWC) graph meant for AI CPU for large windows or strides. AvgPoolV2's
    ``check_supported`` rejects large kernels, and GE then uses the AI CPU kernel when the
    chip's tables list one (else EZ3002).

    ## Example
    ``Conv`` with ``kernel_shape=[1, 300]`` on Ascend310P3: static shape converts slowly;
    with a dynamic batch it fails (E60011).

    ## Fix
    ``atccheck fix`` (split-large-kernel-conv) splits a large Conv kernel into several
    convolutions whose sum is the original (safe). ``atccheck fix`` (split-large-pool)
    turns a pool that tiles its input (kernel == stride, no padding) into a chain of
    smaller pools; other pools need a manual split or accept the AI CPU cost. Large Conv
    strides, pads and dilations need a change to the model.

    ## Facts
    limits.json (conv_compute.py FILTER_HW_MAX/STRIDE_MAX/PAD_MAX/DILATE_MAX of the CANN
    8.1.RC1 toolkit; max_pool_onnx_plugin.cpp; avg_pool_v2.py; the published MaxPool and
    AveragePool pages); op_facts.json kind ``pool-aicpu-graph`` (which plugins build the AI
    CPU pool graph, per profile); profiles.json ``published_pages`` (the profiles the
    published AveragePool page speaks for); kernels.json for AvgPoolV2's AI CPU kernel and its ``check_supported``
    flag per family (the flag decides whether check_supported runs: notes/cann_source.md
    section 7); notes/cann_source.md sections 6 and 7.
    """

    code = "AC301"
    name = "kernel-out-of-range"
    severity = Severity.WARNING
    op_types = frozenset({"Conv", "MaxPool", "AveragePool"})

    def check_node(self, node: NodeContext) -> Iterable[Finding]:
        if not reaches_plugin(node):
            return
        if node.op_type == "Conv":
            yield from self._conv(node)
        else:
            yield from self._pool(node)

    # ---------------------------------------------------------------- Conv

    def _conv(self, node: NodeContext) -> Iterable[Finding]:
        ctx = node.ctx
        tbl = ctx.tables
        soc = ctx.target.soc
        kernel = kernel_spatial(node)
        if kernel is not None and len(kernel) == 1:
            kernel = (1,) + kernel  # the plugin runs 1-D as 2-D with H=1
        hard = tbl.limit("conv_param_hard_max")
        where = f"{ctx.target.soc.name}, CANN {ctx.target.profile.id}"
        if kernel is not None and len(kernel) == 2:
            name = "conv_filter_hw_max_fixpipe" if soc.fixpipe else "conv_filter_hw_max"
            limit = tbl.limit(name)
            big = [k for k in kernel if k > limit]
            if big:
                info = node.input_info(0)
                known = info is not None and info.shape is not None
                static = known and info is not None and info.is_static
                source = f"op_tables/limits.json {name}; {tbl.limits[name].source}"
                data = {"kernel_hw": list(kernel), "limit": limit, "static_shape": static, "fixpipe": soc.fixpipe}
                if (static or not known) and max(kernel) <= hard:
                    unknown = "" if known else " (the input shape is unknown: a dynamic shape would fail with E60011)"
                    yield self.finding(
                        node,
                        f"Conv kernel H/W {kernel[0]}x{kernel[1]} exceeds {limit} ({name}) on {where}; in static "
                        f"shape ATC compiles it through the slow l0a_dma im2col path{unknown}",
                        hint="split the kernel into parts of at most the limit (atccheck fix)",
                        source=source, data=data,
                    )
                else:
                    why = "the input shape is not static" if not static else f"it exceeds {hard}"
                    yield self.finding(
                        node,
                        f"Conv kernel H/W {kernel[0]}x{kernel[1]} exceeds {limit} ({name}) on {where} and {why}; "
                        f"ATC fails with E60011",
                        hint="split the kernel into parts of at most the limit (atccheck fix), or give static "
                        "input shapes",
                        source=source, severity=Severity.ERROR, atc_error="E60011", data=data,
                    )
        checked = (("strides", "conv_stride_max"), ("pads", "conv_pad_max"), ("dilations", "conv_dilation_max"))
        for attr, name in checked:
            values = node.attrs.get(attr)
            if not isinstance(values, list) or not values:
                continue
            limit = tbl.limit(name)
            over = [v for v in values if v > limit]
            if not over:
                continue
            source = f"op_tables/limits.json {name}; {tbl.limits[name].source}"
            data = {"attr": attr, "values": list(values), "limit": limit, "hard_limit": hard}
            if max(over) > hard:
                yield self.finding(
                    node,
                    f"Conv {attr} {values} has a value above {hard} (conv_param_hard_max); ATC fails with E60011",
                    hint=f"use {attr} of at most {limit}",
                    source=source, severity=Severity.ERROR, atc_error="E60011", data=data,
                )
            else:
                yield self.finding(
                    node,
                    f"Conv {attr} {values} exceed {limit} ({name}) on {where}; ATC compiles the convolution "
                    f"through the slow l0a_dma im2col path",
                    hint=f"use {attr} of at most {limit} where the model allows it",
                    source=source, data=data,
                )

    # ---------------------------------------------------------------- pools

    def _pool(self, node: NodeContext) -> Iterable[Finding]:
        ctx = node.ctx
        tbl = ctx.tables
        kernel = node.attrs.get("kernel_shape")
        if not isinstance(kernel, list) or not kernel:
            return  # the plugin's own 'kernel_shape is required' error; attr-out-of-range reports it
        kernel = [int(k) for k in kernel]
        strides = [int(s) for s in node.attrs.get("strides") or []]
        where = f"{ctx.target.soc.name}, CANN {ctx.target.profile.id}"
        kmax = tbl.limit("pool_kernel_max")
        if max(kernel) > kmax:
            yield self.finding(
                node,
                f"{node.op_type} kernel_shape {kernel} has a value above {kmax}, the published kernel range "
                f"[1, {kmax}]",
                hint=POOL_HINT,
                source=f"op_tables/limits.json pool_kernel_max; {tbl.limits['pool_kernel_max'].source}",
                severity=Severity.ERROR,
                data={"kernel_shape": kernel, "limit": kmax},
            )
            return
        if len(kernel) > 2:
            return  # 3-D pools map to MaxPool3D/AvgPool3D; no window facts for them
        hw = ([1] + kernel) if len(kernel) == 1 else kernel
        graph = aicpu_pool_graph(tbl, node.op_type, ctx.target.profile.id)
        if graph is not None:
            area_max = tbl.limit("pool_aicpu_window_area")
            stride_max = tbl.limit("pool_aicpu_stride")
            area = hw[0] * hw[1]
            big_stride = [s for s in strides if s > stride_max]
            if area > area_max or big_stride:
                why = (f"window {hw[0]}x{hw[1]} = {area} > {area_max}" if area > area_max
                       else f"stride {max(big_stride)} > {stride_max}")
                plugin, built = graph.source, (graph.params or {})["builds"]
                yield self.finding(
                    node,
                    f"{node.op_type} {why}: the ONNX plugin builds a TransposeD/PadV2/{built} (NHWC) graph for "
                    f"AI CPU instead of the AI Core kernel on {where}",
                    hint=POOL_HINT,
                    source=f"op_tables/limits.json pool_aicpu_window_area, pool_aicpu_stride; {plugin}",
                    data={"kernel_hw": hw, "strides": strides, "window_area_limit": area_max,
                          "stride_limit": stride_max},
                )
                return
        if node.op_type == "AveragePool":
            yield from self._avgpool_v2(node, hw)

    def _avgpool_v2(self, node: NodeContext, hw: list[int]) -> Iterable[Finding]:
        """AvgPoolV2's check_supported (on families whose config sets the flag), then the 9.0 page."""
        ctx = node.ctx
        tbl = ctx.tables
        side_max, area_max = tbl.limit("avgpool_kernel_hw_max"), tbl.limit("avgpool_window_area_max")
        area = hw[0] * hw[1]
        if max(hw) <= side_max and area <= area_max:
            return
        info = node.input_info(0)
        if info is None or info.shape is None or len(info.shape) < 3:
            return  # cannot tell a global pool from a large window
        spatial = list(info.shape[2:])
        spatial = [1, *spatial] if len(spatial) == 1 else spatial
        if not all(isinstance(d, int) for d in spatial):
            return
        if spatial == hw and not any(node.attrs.get("pads") or []):
            return  # a global pool: check_supported accepts it
        kernel = ctx.kernel("AvgPoolV2") if ctx.has_kernel_facts else None
        checks = bool(kernel is not None and kernel.aicore and kernel.aicore.get("check_supported"))
        reason = self._avgpool_v2_rejects(node, hw, side_max, area_max)
        data = {"kernel_hw": hw, "input_hw": spatial, "limit": side_max, "window_area": area,
                "check_supported": checks}
        if reason is not None and checks and kernel is not None:
            source = (f"op_tables/limits.json avgpool_kernel_hw_max, avgpool_window_area_max, avgpool_kernel_side_max; "
                      f"{tbl.limits['avgpool_kernel_hw_max'].source}")
            data["reason"] = "check-supported"
            if kernel.aicpu:
                yield self.finding(
                    node,
                    f"AveragePool kernel {hw[0]}x{hw[1]}: {reason}, which AvgPoolV2's check_supported rejects "
                    f"({kernel.family} sets the flag), and GE runs the AI CPU kernel on {ctx.target.soc.name}",
                    hint=POOL_HINT,
                    source=f"{source}; op_tables/kernels.json AvgPoolV2 {kernel.family}",
                    data=data,
                )
            else:
                yield self.finding(
                    node,
                    f"AveragePool kernel {hw[0]}x{hw[1]}: {reason}, which AvgPoolV2's check_supported rejects "
                    f"({kernel.family} sets the flag), and the kernel tables list no AI CPU AvgPoolV2 for "
                    f"{ctx.target.soc.name}; ATC fails with EZ3002",
                    hint=POOL_HINT,
                    source=f"{source}; op_tables/kernels.json ({ctx.target.soc.kernel_family})",
                    severity=Severity.ERROR, atc_error="EZ3002",
                    data=data,
                )
            return
        page_area = tbl.limit("avgpool_page_window_area_max")
        if not ctx.target.profile.published_pages or (max(hw) <= side_max and area <= page_area):
            return
        why = f"a side above {side_max}" if max(hw) > side_max else f"kH*kW = {area} > {page_area}"
        flag = ("" if checks or kernel is None else
                f"; {kernel.family}'s AvgPoolV2 config does not set check_supported, so the kernel's own checks do "
                "not run there")
        data["reason"] = "page"
        yield self.finding(
            node,
            f"AveragePool kernel {hw[0]}x{hw[1]} has {why}: the published AveragePool page says such a pool runs "
            f"on AI CPU (slow) on CANN {ctx.target.profile.id}{flag}",
            hint=POOL_HINT,
            source=(f"op_tables/limits.json avgpool_page_window_area_max, avgpool_kernel_hw_max; "
                    f"{tbl.limits['avgpool_page_window_area_max'].source}"),
            data=data,
        )

    @staticmethod
    def _avgpool_v2_rejects(node: NodeContext, hw: list[int], side_max: int, area_max: int) -> str | None:
        """Why AvgPoolV2's check_supported (avg_pool_v2.py) rejects this non-global window, or None."""
        if max(hw) > side_max:
            return f"a side above {side_max} and not global"
        side = node.ctx.tables.limit("avgpool_kernel_side_max")
        out = node.output_info(0)
        if out is None or out.shape is None or len(out.shape) != 4:
            return None
        out_h, out_w = out.shape[2], out.shape[3]
        if hw[0] * hw[1] > area_max and max(hw) > side and out_h != 1 and out_w == 1:
            return (f"kH*kW = {hw[0] * hw[1]} > {area_max} with a side above {side} and an output of H {out_h}, "
                    "W 1")
        return None


def aicpu_pool_graph(tbl: Tables, op: str, profile: str) -> OpFact | None:
    """The op_facts.json pool-aicpu-graph fact when this profile's plugin builds an AI CPU graph for
    large windows or strides of this pool (MaxPool always; AveragePool in the 2022 plugins), else None."""
    facts = tbl.op_facts_for("pool-aicpu-graph", op, profile)
    return facts[0] if facts else None
