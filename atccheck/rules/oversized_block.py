"""oversized-block: a tensor dimension or count beyond a per-op limit of ATC's kernels or pages."""

from __future__ import annotations

from collections.abc import Iterable

from atccheck.context import NodeContext
from atccheck.findings import Finding, Severity
from atccheck.model.shapes import TensorInfo
from atccheck.rules.base import Rule, register

CHECK_SUPPORTED_SOURCE = "shared/reference/notes/cann_source.md section 7 (check_supported, AI CPU fallback)"


@register
class OversizedBlock(Rule):
    """A feature map, resize or box count is larger than the op's limit on this chip.

    ## What it does
    Compares static inferred shapes and constant inputs with per-op limits from
    ``op_tables/limits.json``, in three checks:

    - feature map too wide: Conv input width above ``conv_fmap_w_max`` (published range
      [1, 4096]); MaxPool / AveragePool input width above ``pool_fmap_w_max`` ([1, 4096]);
    - nearest Resize beyond the float16 range: an input or output H or W above
      ``resize_nearest_max_hw`` on chips without float32 ``vadds`` (``fp32_vadds`` false in
      ``op_tables/socs.json``);
    - too many NMS boxes: NonMaxSuppression ``max_output_boxes_per_class`` above
      ``nms_max_output_boxes_warn``.

    Dims that are not static are skipped (dynamic-input-shape and dynamic-shape-unsupported
    report them).

    ## Why
    The published pages give the Conv and pool input width range; what ATC does beyond it
    is not traced for every chip (the CANN source enforces 1..4096 only on its V350 Conv2D
    path), so these are warnings. On chips without float32 ``vadds`` (Ascend310), the
    ResizeNearestNeighborV2 kernel's check_supported rejects H or W above 2048 ("H or W is
    too large to compute with float16."): GE then places the op on AI CPU when the chip has
    an AI CPU kernel for it (a warning, slow), and fails otherwise (an error). The NMS page
    warns that more than 700 boxes per class may exhaust hardware resources.

    ## Example
    ``Conv`` on an input of shape ``[1, 3, 32, 8192]``; ``Resize`` (mode nearest) from
    ``[1, 3, 1024, 1024]`` to ``[1, 3, 4096, 4096]`` for ``--soc Ascend310``.

    ## Fix
    Manual: tile the input along W (several Convs on slices, then Concat), resize in
    several smaller steps or on the host, lower ``max_output_boxes_per_class``.

    ## Facts
    ``op_tables/limits.json``: ``conv_fmap_w_max`` and ``pool_fmap_w_max`` (hiascend.com
    operator pages, CANN 9.0), ``resize_nearest_max_hw`` (CANN 8.1.RC1
    impl/dynamic/resize_nearest_neighbor_v2.py ``MAX_H_W``), ``nms_max_output_boxes_warn``
    (NonMaxSuppression page). AI CPU kernels per chip: ``op_tables/kernels.json``.
    """

    code = "AC401"
    name = "oversized-block"
    severity = Severity.WARNING
    op_types = frozenset({"AveragePool", "Conv", "MaxPool", "NonMaxSuppression", "Resize"})

    def check_node(self, node: NodeContext) -> Iterable[Finding]:
        # Four unrelated limits share this rule (and its code); each check is one method.
        if node.op_type == "Conv":
            yield from self.feature_map_too_wide(node, "conv_fmap_w_max")
        elif node.op_type in ("MaxPool", "AveragePool"):
            yield from self.feature_map_too_wide(node, "pool_fmap_w_max")
        elif node.op_type == "Resize":
            yield from self.nearest_resize_beyond_fp16_range(node)
        elif node.op_type == "NonMaxSuppression":
            yield from self.too_many_nms_boxes(node)

    def feature_map_too_wide(self, node: NodeContext, limit_name: str) -> Iterable[Finding]:
        """Conv or pool input width above the published range (conv_fmap_w_max, pool_fmap_w_max)."""
        ctx = node.ctx
        info = node.input_info(0)
        if info is None or not info.is_static or (info.rank or 0) < 3:
            return
        width = int(info.shape[-1])  # type: ignore[index, arg-type]  # is_static: every dim an int
        limit = ctx.tables.limits[limit_name]
        if width <= limit.value:
            return
        yield self.finding(
            node,
            f"{node.op_type} input width {width} is above the published range [1, {limit.value}] for "
            f"{ctx.target.soc.name}; ATC may reject the op or build it through a slower path (not verified per chip)",
            hint="split the input along W into slices within the range and concatenate the results, or downscale it",
            source=limit.source,
            data={"width": width, "limit": limit.value, "limit_name": limit_name, "shape": list(info.shape)},  # type: ignore[arg-type]
        )

    def nearest_resize_beyond_fp16_range(self, node: NodeContext) -> Iterable[Finding]:
        """Nearest Resize H/W above resize_nearest_max_hw on a chip without float32 vadds: the kernel's
        check_supported rejects it (AI CPU when the chip has a kernel, else EZ3003)."""
        ctx = node.ctx
        soc = ctx.target.soc
        if soc.fp32_vadds is not False or node.attr("mode", "nearest") != "nearest":
            return
        limit = ctx.tables.limits["resize_nearest_max_hw"]
        sizes = {"input": _hw(node.input_info(0)), "output": _hw(node.output_info(0))}
        over = {
            f"{side} {axis}": value
            for side, hw in sizes.items()
            if hw is not None
            for axis, value in zip(("H", "W"), hw)
            if value > limit.value
        }
        if not over:
            return
        assert limit.kernel is not None  # op_tables/limits.json names the kernel this limit is from
        kernel = ctx.kernel(limit.kernel)
        listed = ", ".join(f"{k} {v}" for k, v in over.items())
        if not ctx.has_kernel_facts:
            yield self.finding(
                node,
                f"nearest Resize with {listed} above {limit.value}: {limit.kernel} on {soc.name} (no float32 "
                "vadds) rejects it in check_supported; whether an AI CPU kernel takes over is unknown (no kernel "
                f"facts for CANN {ctx.target.profile.id} on this chip)",
                hint="resize in several steps that stay within the limit, or do this resize on the host",
                source=f"{limit.source}; {CHECK_SUPPORTED_SOURCE}",
                severity=Severity.WARNING,
                data={"dims_over_limit": over, "limit": limit.value, "ascend_op": limit.kernel, "aicpu_kernel": None},
            )
            return
        data = {
            "dims_over_limit": over,
            "limit": limit.value,
            "ascend_op": limit.kernel,
            "aicpu_kernel": bool(kernel and kernel.aicpu),
        }
        source = f"{limit.source}; {CHECK_SUPPORTED_SOURCE}"
        if kernel is not None and kernel.aicpu:
            yield self.finding(
                node,
                f"nearest Resize with {listed} above {limit.value}: {limit.kernel} on {soc.name} (no float32 "
                "vadds) rejects it in check_supported, so it falls back to AI CPU (slow)",
                hint="resize in several steps that stay within the limit, or do this resize on the host",
                source=f"{source}; {kernel.source}",
                severity=Severity.WARNING,
                data=data,
            )
            return
        why = "has no AI CPU kernel for it" if kernel is not None else "has no recorded AI CPU kernel for it"
        yield self.finding(
            node,
            f"nearest Resize with {listed} above {limit.value}: {limit.kernel} on {soc.name} (no float32 "
            f"vadds) rejects it in check_supported, and CANN {ctx.target.profile.id} {why}",
            hint="resize in several steps that stay within the limit, or do this resize on the host",
            source=source if kernel is None else f"{source}; {kernel.source}",
            severity=Severity.ERROR,
            atc_error="EZ3003",
            data=data,
        )

    def too_many_nms_boxes(self, node: NodeContext) -> Iterable[Finding]:
        """NonMaxSuppression max_output_boxes_per_class above the page's nms_max_output_boxes_warn."""
        ctx = node.ctx
        value = ctx.const_value(node.input_name(2)) if node.input_name(2) else None
        if value is None or value.size != 1:
            return
        boxes = int(value.reshape(-1)[0])
        limit = ctx.tables.limits["nms_max_output_boxes_warn"]
        if boxes <= limit.value:
            return
        yield self.finding(
            node,
            f"NonMaxSuppression max_output_boxes_per_class is {boxes}, above {limit.value}: the published page warns "
            f"it may exhaust hardware resources ({ctx.target.soc.name})",
            hint=f"lower max_output_boxes_per_class to {limit.value} or less, or run NMS on the host",
            source=limit.source,
            data={"max_output_boxes_per_class": boxes, "limit": limit.value},
        )


def _hw(info: TensorInfo | None) -> tuple[int, int] | None:
    """(H, W) of a static 4-D NCHW tensor."""
    if info is None or not info.is_static or info.rank != 4:
        return None
    return int(info.shape[2]), int(info.shape[3])  # type: ignore[index, arg-type]  # is_static: every dim an int
