"""decompose-contrib-rotary-embedding: onnxruntime's com.microsoft RotaryEmbedding into Gather/Slice/Mul arithmetic."""

from __future__ import annotations

from typing import ClassVar

from atccheck.passes._rewrite import ContribDecomposition, Emitter, Rewriter, Site
from atccheck.passes.base import register_pass
from atccheck.passes.decompose_rotary_embedding import rotate

INPUT, POSITION_IDS, COS, SIN = range(4)


@register_pass
class DecomposeContribRotaryEmbedding(ContribDecomposition):
    """Rewrite ``com.microsoft::RotaryEmbedding`` as Gather, Slice, Mul, Sub/Add and Concat.

    onnxruntime's op (LLM exports for onnxruntime): input [B, S, hidden] (``num_heads``
    heads, or head size from the caches when ``num_heads`` is 0) or [B, heads, S, head];
    ``position_ids`` [B, S], or [1] holding the position of the first token (then positions
    are it + 0..S-1, which needs a static S); cache rows [max position, dim/2]. The rotation
    is the one of ONNX RotaryEmbedding-23 (halves, or even/odd pairs with ``interleaved``;
    the first ``rotary_embedding_dim`` values of each head). Left with a note:
    ``is_packed_batching``. The com.microsoft import is removed here once no node uses it.
    Exact up to float rounding.
    """

    name = "decompose-contrib-rotary-embedding"
    op_types: ClassVar[frozenset[str] | None] = frozenset({"RotaryEmbedding"})
    tolerance = 1e-5
    rtol = 1e-5
    counted = "RotaryEmbedding node(s)"

    def rewrite(self, rw: Rewriter, site: Site) -> Emitter | str:
        import numpy as np

        x, positions, cos, sin = (site.input(k) for k in range(4))
        rw.float_type(x)
        if site.attr("is_packed_batching", 0):
            return "is_packed_batching=1 (packed sequences)"
        info, cache = rw.info(x), rw.info(cos)
        if info is None or info.shape is None or len(info.shape) not in (3, 4) or not isinstance(info.shape[-1], int):
            return "the input's rank (3 or 4) and last axis must be known"
        if cache is None or cache.shape is None or len(cache.shape) != 2 or not isinstance(cache.shape[1], int):
            return "the cos cache shape [max position, dim/2] is unknown"
        dim = 2 * cache.shape[1]
        em = Emitter(rw, site)
        heads = int(site.attr("num_heads", 0))
        if len(info.shape) == 3:
            hidden = info.shape[-1]
            if heads <= 0:
                heads = hidden // (int(site.attr("rotary_embedding_dim", 0)) or dim)
            if heads <= 0 or hidden % heads:
                return f"num_heads does not divide the hidden size {hidden}"
            head = hidden // heads
            view = em.reshape(x, [0, 0, heads, head])  # B, S, N, h
            cache_axis = 2
        else:
            head = info.shape[-1]
            view = x  # B, N, S, h
            cache_axis = 1
        dim = int(site.attr("rotary_embedding_dim", 0)) or dim
        if dim % 2 or dim > head or dim != 2 * cache.shape[1]:
            return f"rotary dimension {dim} for head size {head} and caches of {cache.shape[1]} columns"
        ids = rw.info(positions)
        if ids is not None and ids.shape is not None and len(ids.shape) == 1:
            seq = info.shape[1] if len(info.shape) == 3 else info.shape[2]
            if not isinstance(seq, int):
                return "a position offset ([1] position_ids) needs a static sequence length"
            steps = em.const(np.arange(seq, dtype=np.int64), "steps")
            positions = em.op("Add", [em.cast(positions, 7), steps])  # [S]: offset + 0..S-1
            cos = em.op("Gather", [cos, positions], axis=0)  # [S, dim/2]: broadcasts over batch
            sin = em.op("Gather", [sin, positions], axis=0)
            if len(info.shape) == 3:  # [S, 1, dim/2] against [B, S, N, h]
                cos, sin = em.unsqueeze(cos, [1]), em.unsqueeze(sin, [1])
        else:
            cos = em.unsqueeze(em.op("Gather", [cos, positions], axis=0), [cache_axis])
            sin = em.unsqueeze(em.op("Gather", [sin, positions], axis=0), [cache_axis])
        result = rotate(em, view, cos, sin, dim, head, bool(site.attr("interleaved", 0)))
        if len(info.shape) == 3:
            result = em.reshape(result, [0, 0, info.shape[-1]])
        em.finish(result, site.output(0))
        return em
