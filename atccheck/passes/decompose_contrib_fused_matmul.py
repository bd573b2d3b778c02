"""decompose-contrib-fused-matmul: onnxruntime's com.microsoft FusedMatMul into Transpose + MatMul + Mul."""

from __future__ import annotations

from typing import ClassVar

from atccheck.passes._rewrite import ContribDecomposition, Emitter, Rewriter, Site, Unsupported
from atccheck.passes.base import register_pass


def operand_perm(rank: int, trans: bool, trans_batch: bool) -> list[int]:
    """The axis order that turns a FusedMatMul operand into a plain MatMul operand.

    ``transBatch`` means the operand is stored [first, batch..., last]: its first axis is a
    matrix axis, moved behind the batch axes; ``trans`` then swaps the two matrix axes.
    """
    perm = list(range(rank))
    if trans_batch and rank > 2:
        perm = perm[1:-1] + [0, rank - 1]
    if trans and rank >= 2:
        perm[-2], perm[-1] = perm[-1], perm[-2]
    return perm


@register_pass
class DecomposeContribFusedMatMul(ContribDecomposition):
    """Rewrite ``com.microsoft::FusedMatMul`` as Transposes, ``MatMul`` and a ``Mul`` by ``alpha``.

    onnxruntime's graph optimizer (level "extended" and above) folds Transposes of a
    MatMul's operands and a scalar Mul after it into FusedMatMul: ``Y = alpha * A' @ B'``.
    ``transA``/``transB`` swap the last two axes of an operand; ``transBatchA``/``transBatchB``
    say the operand is stored with its first axis as the row axis ([M, batch..., K] for A),
    moved behind the batch axes before the product (the layouts onnxruntime 1.32 computes).
    Transposes need the operand rank (from shape inference), except the plain last-two-axes
    swap of a rank-2 operand. ``alpha`` = 1 writes no Mul. The com.microsoft import is
    removed here once no node uses it. Exact (the Mul rounds once, as the fused op does).
    """

    name = "decompose-contrib-fused-matmul"
    op_types: ClassVar[frozenset[str] | None] = frozenset({"FusedMatMul"})
    tolerance = 1e-5
    rtol = 1e-5
    counted = "FusedMatMul node(s)"

    def rewrite(self, rw: Rewriter, site: Site) -> Emitter | str:
        a, b = site.input(0), site.input(1)
        elem = rw.float_type(a)
        em = Emitter(rw, site)
        operands = []
        for value, side in ((a, "A"), (b, "B")):
            trans = bool(site.attr(f"trans{side}", 0))
            trans_batch = bool(site.attr(f"transBatch{side}", 0))
            if trans or trans_batch:
                rank = rw.rank(value)
                if rank is None:
                    raise Unsupported(f"trans{'Batch' if trans_batch else ''}{side} needs the rank of '{value}', "
                                      "which shape inference did not find")
                if rank < 2:
                    raise Unsupported(f"a transposed operand '{value}' of rank {rank}")
                value = em.transpose(value, operand_perm(rank, trans, trans_batch))
            operands.append(value)
        alpha = float(site.attr("alpha", 1.0))
        product = em.op("MatMul", operands, site.output(0) if alpha == 1.0 else None)
        if alpha != 1.0:
            em.op("Mul", [product, em.scalar(alpha, elem, "alpha")], site.output(0))
        return em
