"""decompose-contrib-gemm-fast-gelu: onnxruntime's com.microsoft GemmFastGelu into MatMul + tanh Gelu."""

from __future__ import annotations

from typing import ClassVar

from atccheck.passes._formulas import gelu_tanh
from atccheck.passes._rewrite import ContribDecomposition, Emitter, Rewriter, Site
from atccheck.passes.base import register_pass


@register_pass
class DecomposeContribGemmFastGelu(ContribDecomposition):
    """Rewrite ``com.microsoft::GemmFastGelu`` as ``MatMul``, ``Add`` of the bias, and tanh Gelu.

    The schema onnxruntime 1.32 registers: "a fusion of MatMul and FastGelu", i.e.
    FastGelu(``X @ W`` (+ ``bias``)), FastGelu being the tanh-approximated Gelu. onnxruntime
    writes it when optimizing for GPU (its CPU provider has no kernel for it, so the pass is
    checked against the MatMul, Add and FastGelu it stands for). The com.microsoft import is
    removed here once no node uses it. Exact up to float rounding.
    """

    name = "decompose-contrib-gemm-fast-gelu"
    op_types: ClassVar[frozenset[str] | None] = frozenset({"GemmFastGelu"})
    tolerance = 1e-5
    rtol = 1e-5
    counted = "GemmFastGelu node(s)"

    def rewrite(self, rw: Rewriter, site: Site) -> Emitter | str:
        x, w, bias = site.input(0), site.input(1), site.input(2)
        elem = rw.float_type(x)
        em = Emitter(rw, site)
        total = em.op("MatMul", [x, w])
        if bias:
            total = em.op("Add", [total, bias])
        gelu_tanh(em, total, elem, out=site.output(0))
        return em
