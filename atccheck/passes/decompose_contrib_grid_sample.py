"""decompose-contrib-grid-sample: onnxruntime's com.microsoft GridSample into GatherElements arithmetic."""

from __future__ import annotations

from typing import ClassVar

from atccheck.passes._rewrite import ContribDecomposition, Emitter, Rewriter, Site
from atccheck.passes.base import register_pass
from atccheck.passes.decompose_grid_sample import grid_sample_rewrite


@register_pass
class DecomposeContribGridSample(ContribDecomposition):
    """Rewrite ``com.microsoft::GridSample`` as decompose-grid-sample rewrites GridSample-16.

    Before ONNX had GridSample (opset 16), models exported ``grid_sample`` as onnxruntime's
    contrib GridSample: the same attributes as GridSample-16 (``mode`` bilinear/nearest/
    bicubic, ``padding_mode``, ``align_corners``), 4-D input only. Every mode becomes
    GatherElements arithmetic (see decompose-grid-sample). The com.microsoft import is
    removed here once no node uses it. Exact up to float rounding.
    """

    name = "decompose-contrib-grid-sample"
    op_types: ClassVar[frozenset[str] | None] = frozenset({"GridSample"})
    tolerance = 1e-5
    rtol = 1e-5
    counted = "GridSample node(s)"

    def rewrite(self, rw: Rewriter, site: Site) -> Emitter | str:
        return grid_sample_rewrite(rw, site, site.attr("mode", "bilinear"))
