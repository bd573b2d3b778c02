"""decompose-contrib-bias-add: onnxruntime's com.microsoft BiasAdd into two Adds."""

from __future__ import annotations

from typing import ClassVar

from atccheck.passes._rewrite import ContribDecomposition, Emitter, Rewriter, Site
from atccheck.passes.base import register_pass


@register_pass
class DecomposeContribBiasAdd(ContribDecomposition):
    """Rewrite ``com.microsoft::BiasAdd`` as ``(X + bias) + skip``.

    The schema onnxruntime 1.32 registers: "Add input with bias, then add residual inputs"
    (X and skip [N, S, C], bias [C]). onnxruntime writes it when optimizing diffusion models
    for GPU (its CPU provider has no kernel, so the pass is checked against the two Adds it
    stands for). The com.microsoft import is removed here once no node uses it. Exact.
    """

    name = "decompose-contrib-bias-add"
    op_types: ClassVar[frozenset[str] | None] = frozenset({"BiasAdd"})
    tolerance = 1e-6
    rtol = 1e-6
    counted = "BiasAdd node(s)"

    def rewrite(self, rw: Rewriter, site: Site) -> Emitter | str:
        x, bias, skip = site.input(0), site.input(1), site.input(2)
        rw.float_type(x)
        em = Emitter(rw, site)
        em.op("Add", [em.op("Add", [x, bias]), skip], site.output(0))
        return em
