"""decompose-contrib-bias-split-gelu: onnxruntime's com.microsoft BiasSplitGelu into Add, Slice and Erf Gelu."""

from __future__ import annotations

from typing import ClassVar

from atccheck.passes._formulas import gelu_erf
from atccheck.passes._rewrite import ContribDecomposition, Emitter, Rewriter, Site
from atccheck.passes.base import register_pass


@register_pass
class DecomposeContribBiasSplitGelu(ContribDecomposition):
    """Rewrite ``com.microsoft::BiasSplitGelu`` as ``left * Gelu(right)`` of ``X + bias``.

    The schema onnxruntime 1.32 registers: "after adding bias, hidden state is sliced into
    two tensors of same size, then left tensor multiplies the Gelu activation result of
    right tensor" (X [N, S, D], bias [D], Y [N, S, D/2]; the GEGLU of diffusion models), Gelu
    being onnxruntime's exact (Erf) Gelu. onnxruntime writes it when optimizing for GPU (no
    CPU kernel: the pass is checked against the Add, Slices and Gelu it stands for). Needs
    the last axis static. The com.microsoft import is removed here once no node uses it.
    Exact up to float rounding.
    """

    name = "decompose-contrib-bias-split-gelu"
    op_types: ClassVar[frozenset[str] | None] = frozenset({"BiasSplitGelu"})
    tolerance = 1e-5
    rtol = 1e-5
    counted = "BiasSplitGelu node(s)"

    def rewrite(self, rw: Rewriter, site: Site) -> Emitter | str:
        x, bias = site.input(0), site.input(1)
        elem = rw.float_type(x)
        info = rw.info(x)
        width = info.shape[-1] if info is not None and info.shape else None
        if not isinstance(width, int) or width % 2:
            return "the last axis must be static and even"
        em = Emitter(rw, site)
        total = em.op("Add", [x, bias])
        left = em.slice(total, [0], [width // 2], [-1])
        right = em.slice(total, [width // 2], [width], [-1])
        em.op("Mul", [left, gelu_erf(em, right, elem)], site.output(0))
        return em
