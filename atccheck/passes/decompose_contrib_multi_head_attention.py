"""decompose-contrib-multi-head-attention: onnxruntime's com.microsoft MultiHeadAttention into MatMul/Softmax arithmetic."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, ClassVar

from atccheck.passes._graph import consumers
from atccheck.passes._rewrite import ContribDecomposition, Emitter, Rewriter, Site
from atccheck.passes.base import register_pass

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.model.shapes import Shape

MASK_FILTER_VALUE = -10000.0  # the attribute's default in onnxruntime's kernel
QUERY, KEY, VALUE, BIAS, KEY_PADDING_MASK, ATTENTION_BIAS, PAST_KEY, PAST_VALUE, PAST_LENGTH, CACHE = range(10)


@register_pass
class DecomposeContribMultiHeadAttention(ContribDecomposition):
    """Rewrite ``com.microsoft::MultiHeadAttention`` (separate Q, K, V) as MatMul, Softmax and reshapes.

    onnxruntime's transformer optimizer writes it for self and cross attention whose
    projections stay outside: ``query`` [B, S, D], ``key`` [B, L, D], ``value`` [B, L, Dv],
    the optional ``bias`` [D + D + Dv] added to each, ``num_heads`` heads; scores
    ``Q K^T * scale`` (default 1/sqrt(head size)); a ``key_padding_mask`` [B, L] (0 pads) or
    [B] of valid key lengths, and ``unidirectional``, set masked scores to
    ``mask_filter_value`` (default -10000) added; ``attention_bias`` is added; Softmax; times
    V; heads merged back to [B, S, Dv]. Left with a note: packed QKV or KV, 4-D keys, past
    state or a read present/qk output, ``cache_indirection``; valid lengths and
    ``unidirectional`` need static sequence lengths. The com.microsoft import is removed here
    once no node uses it. Exact up to summation order (1e-4).
    """

    name = "decompose-contrib-multi-head-attention"
    op_types: ClassVar[frozenset[str] | None] = frozenset({"MultiHeadAttention"})
    tolerance = 1e-4
    rtol = 1e-4
    counted = "MultiHeadAttention node(s)"

    def rewrite(self, rw: Rewriter, site: Site) -> Emitter | str:
        import numpy as np

        q, k, v, bias, padding, attention_bias = (site.input(i) for i in range(6))
        if any(site.input(i) for i in (PAST_KEY, PAST_VALUE, PAST_LENGTH, CACHE)):
            return "it reads past key/value state (a decoder step with a cache)"
        read = [site.output(i) for i in (1, 2, 3) if site.output(i) and consumers(rw.model, site.output(i))]
        if read:
            return f"its output(s) {', '.join(read)} are read"
        elem = rw.float_type(q)
        shapes: list[Shape] = []  # query, key, value
        hidden: list[int] = []  # their last (hidden) sizes
        for name in (q, k, v):
            info = rw.info(name)  # None for an absent (empty) input too
            shape = info.shape if info is not None else None
            if shape is None or len(shape) != 3 or not isinstance(shape[-1], int):
                return "only separate 3-D query, key and value with static hidden sizes are rewritten"
            shapes.append(shape)
            hidden.append(shape[-1])
        heads = int(site.attr("num_heads", 0))
        if heads <= 0 or any(h % heads for h in hidden) or hidden[0] != hidden[1]:
            return f"hidden sizes {hidden} do not split into {heads} heads"
        scale = float(site.attr("scale", 0.0)) or 1.0 / math.sqrt(hidden[0] // heads)
        em = Emitter(rw, site)
        if bias:
            starts = [0, hidden[0], 2 * hidden[0]]
            q, k, v = (em.op("Add", [value, em.slice(bias, [s], [s + n], [0])])
                       for value, s, n in zip((q, k, v), starts, hidden))
        q = em.transpose(em.reshape(q, [0, 0, heads, hidden[0] // heads]), [0, 2, 1, 3])
        k = em.transpose(em.reshape(k, [0, 0, heads, hidden[1] // heads]), [0, 2, 3, 1])
        v = em.transpose(em.reshape(v, [0, 0, heads, hidden[2] // heads]), [0, 2, 1, 3])
        scores = em.op("Mul", [em.op("MatMul", [q, k]), em.scalar(scale, elem, "scale")])
        keep = None
        if padding:
            rank = rw.rank(padding)
            if rank == 2:
                keep = em.op("Greater", [padding, em.const(np.array(0, np.int32), "zero_i")])
            elif rank == 1:
                keys = shapes[1][1]
                if not isinstance(keys, int):
                    return "key lengths need a static key sequence length"
                positions = em.const(np.arange(keys, dtype=np.int32), "positions")
                keep = em.op("Less", [positions, em.unsqueeze(padding, [1])])
            else:
                return f"a key_padding_mask of rank {rank}"
            keep = em.unsqueeze(keep, [1, 2])  # B, 1, 1, L
        if site.attr("unidirectional", 0):
            s_len, l_len = shapes[0][1], shapes[1][1]
            if not isinstance(s_len, int) or not isinstance(l_len, int):
                return "unidirectional needs static sequence lengths"
            causal = em.const(np.tril(np.ones((s_len, l_len), dtype=bool)), "causal")
            keep = causal if keep is None else em.op("And", [keep, causal])
        if keep is not None:
            filter_value = float(site.attr("mask_filter_value", MASK_FILTER_VALUE))
            scores = em.op("Add", [scores, em.op("Where", [keep, em.scalar(0.0, elem, "zero"),
                                                             em.scalar(filter_value, elem, "filter")])])
        if attention_bias:
            scores = em.op("Add", [scores, attention_bias])
        probs = em.op("Softmax", [scores], axis=-1)
        context = em.transpose(em.op("MatMul", [probs, v]), [0, 2, 1, 3])
        em.reshape(context, [0, 0, hidden[2]], out=site.output(0))
        return em
