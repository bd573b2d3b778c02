"""decompose-contrib-attention: onnxruntime's com.microsoft Attention into MatMul/Softmax arithmetic."""

from __future__ import annotations

import math
from typing import ClassVar

from atccheck.passes._graph import consumers
from atccheck.passes._rewrite import ContribDecomposition, Emitter, Rewriter, Site, Unsupported
from atccheck.passes.base import register_pass

MASK_FILTER_VALUE = -10000.0  # what onnxruntime adds to a masked score (attribute mask_filter_value)
INPUTS = ("input", "weights", "bias", "mask_index", "past", "attention_bias", "past_sequence_length")


@register_pass
class DecomposeContribAttention(ContribDecomposition):
    """Rewrite ``com.microsoft::Attention`` (packed QKV projection) as MatMul, Softmax and reshapes.

    onnxruntime's BERT/GPT-2 fusion writes one Attention node for a whole self-attention
    block: ``input`` [B, S, D] times the packed ``weights`` [D, Hq + Hk + Hv] (equal thirds
    unless ``qkv_hidden_sizes``) plus ``bias``, split into Q, K, V of ``num_heads`` heads;
    scores ``Q K^T * scale`` (default 1/sqrt(head size)); masked scores get
    ``mask_filter_value`` (default -10000) added, set once whichever mask masks them;
    ``attention_bias`` is added; Softmax over the keys; times V; heads merged back to
    [B, S, Hv]. Masks (the ``mask_index`` forms onnxruntime's CPU kernel reads): a raw
    [B, S] or [B, S, S] mask (a position is kept where the value is above 0), a [B] vector
    of valid lengths (right padding), and ``unidirectional`` = 1 (each token sees itself and
    earlier ones); the last two need a static sequence length. Left with a note: ``past``
    state, a ``present`` output that is read, ``past_sequence_length``, rotary embedding
    (``do_rotary``), a [2B] left-padding or 4-D mask, weights whose shape is unknown.
    The com.microsoft import is removed here once no node uses it. Exact up to summation
    order (1e-4).
    """

    name = "decompose-contrib-attention"
    op_types: ClassVar[frozenset[str] | None] = frozenset({"Attention"})
    tolerance = 1e-4
    rtol = 1e-4
    counted = "Attention node(s)"

    def rewrite(self, rw: Rewriter, site: Site) -> Emitter | str:
        x, weights, bias, mask, past, attention_bias, past_length = (site.input(k) for k in range(len(INPUTS)))
        if past or past_length:
            return "it reads past key/value state (a decoder step); only self-attention without a cache is rewritten"
        if site.output(1) and consumers(rw.model, site.output(1)):
            return "its present (key/value cache) output is read"
        if site.attr("do_rotary", 0):
            return "it applies rotary embedding (do_rotary=1)"
        elem = rw.float_type(x)
        heads = int(site.attr("num_heads", 0))
        w_info = rw.info(weights)
        w_shape = w_info.shape if w_info is not None else None
        if heads <= 0 or not w_shape or len(w_shape) != 2 or not isinstance(w_shape[1], int) or w_shape[1] <= 0:
            return "the packed weights' shape is unknown"
        sizes = [int(v) for v in site.attr("qkv_hidden_sizes", []) or []]
        if not sizes:
            if w_shape[1] % 3:
                return f"weights' second dimension {w_shape[1]} is not three equal parts"
            sizes = [w_shape[1] // 3] * 3
        if len(sizes) != 3 or sum(sizes) != w_shape[1] or any(s % heads for s in sizes):
            return f"qkv_hidden_sizes {sizes} do not split the weights into {heads} heads"
        head_q, head_v = sizes[0] // heads, sizes[2] // heads
        scale = float(site.attr("scale", 0.0)) or 1.0 / math.sqrt(head_q)
        filter_value = float(site.attr("mask_filter_value", MASK_FILTER_VALUE))

        em = Emitter(rw, site)
        keep = self.kept_positions(rw, em, site, x, mask)
        qkv = em.op("MatMul", [x, weights])
        if bias:
            qkv = em.op("Add", [qkv, bias])
        starts = [0, sizes[0], sizes[0] + sizes[1]]
        q, k, v = (em.slice(qkv, [s], [s + n], [-1]) for s, n in zip(starts, sizes))
        q = em.transpose(em.reshape(q, [0, 0, heads, head_q]), [0, 2, 1, 3])  # B, N, S, h
        k = em.transpose(em.reshape(k, [0, 0, heads, sizes[1] // heads]), [0, 2, 3, 1])  # B, N, h, S
        v = em.transpose(em.reshape(v, [0, 0, heads, head_v]), [0, 2, 1, 3])  # B, N, S, hv
        scores = em.op("Mul", [em.op("MatMul", [q, k]), em.scalar(scale, elem, "scale")])
        if keep is not None:
            penalty = em.op("Where", [keep, em.scalar(0.0, elem, "zero"), em.scalar(filter_value, elem, "filter")])
            scores = em.op("Add", [scores, penalty])
        if attention_bias:
            scores = em.op("Add", [scores, attention_bias])
        probs = em.op("Softmax", [scores], axis=-1 if rw.opset >= 13 else 3)
        context = em.transpose(em.op("MatMul", [probs, v]), [0, 2, 1, 3])
        em.reshape(context, [0, 0, sizes[2]], out=site.output(0))
        return em

    @staticmethod
    def kept_positions(rw: Rewriter, em: Emitter, site: Site, x: str, mask: str) -> str | None:
        """A bool tensor broadcastable to the scores [B, N, S, S]: where a score is kept."""
        import numpy as np

        keep = None
        if mask:
            rank = rw.rank(mask)
            if rank == 2:  # raw mask [B, S]
                keep = em.unsqueeze(em.op("Greater", [mask, em.const(np.array(0, np.int32), "zero_i")]), [1, 2])
            elif rank == 3:  # raw mask [B, S, S]
                keep = em.unsqueeze(em.op("Greater", [mask, em.const(np.array(0, np.int32), "zero_i")]), [1])
            elif rank == 1:
                mask_info, x_info = rw.info(mask), rw.info(x)
                lengths = mask_info.shape[0] if mask_info is not None and mask_info.shape else None  # rank 1: known
                batch = x_info.shape[0] if x_info is not None and x_info.shape else None
                if not isinstance(lengths, int) or not isinstance(batch, int) or lengths != batch:
                    raise Unsupported("a 1-D mask_index other than [B] valid lengths (left padding [2B] or unknown)")
                seq = sequence_length(rw, x)
                positions = em.const(np.arange(seq, dtype=np.int32), "positions")
                keep = em.unsqueeze(em.op("Less", [positions, em.unsqueeze(mask, [1])]), [1, 2])
            else:
                raise Unsupported(f"a mask_index of rank {rank} (only [B], [B, S] and [B, S, S] are rewritten)")
        if site.attr("unidirectional", 0):
            seq = sequence_length(rw, x)
            causal = em.const(np.tril(np.ones((seq, seq), dtype=bool)), "causal")
            keep = causal if keep is None else em.op("And", [keep, causal])
        return keep


def sequence_length(rw: Rewriter, x: str) -> int:
    info = rw.info(x)
    seq = info.shape[1] if info is not None and info.shape and len(info.shape) == 3 else None
    if not isinstance(seq, int):
        raise Unsupported("this mask needs a static sequence length (give --input-shape)")
    return seq
