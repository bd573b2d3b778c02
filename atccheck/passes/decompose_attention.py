"""decompose-attention: Attention (opset 23) into MatMul/Softmax arithmetic."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, ClassVar

from atccheck.passes._graph import consumers
from atccheck.passes._rewrite import Decomposition, Emitter, Rewriter, Site, Unsupported
from atccheck.passes.base import FixLink, register_pass

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.model.shapes import Shape

Q, K, V, MASK, PAST_KEY, PAST_VALUE = range(6)
Y, PRESENT_KEY, PRESENT_VALUE, QK_OUTPUT = range(4)


@register_pass
class DecomposeAttention(Decomposition):
    """Rewrite Attention (opset 23) as MatMul, Softmax, Transpose/Reshape (and Where for masks).

    Attention has no earlier version and no plugin; new transformer exports write it at
    opset 23 for scaled dot-product attention. The ONNX definition: Q [B, Hq, S, h] and
    K, V [B, Hkv, T, h] (or 3-D [B, S, heads * h] with ``q_num_heads``/``kv_num_heads``,
    split into heads); each K/V head serves Hq/Hkv query heads (grouped-query attention:
    an Expand); ``Q K^T`` times ``scale`` (default 1/sqrt(h), applied as sqrt(scale) to Q and
    to K as the definition does); ``softcap`` c: ``c * tanh(s / c)``; ``attn_mask`` added
    (float) or applied as ``Where(mask, 0, -inf)`` (bool); ``is_causal`` keeps keys at or
    before the query position (no past keys; static sequence lengths); Softmax over the keys; times V; 3-D heads
    merged back. A query row whose keys a bool mask all masks gives zeros, as the
    definition's errata and onnxruntime say. Left with a note: ``past_key``/``past_value``, a
    read ``present_*`` or ``qk_matmul_output``, ``softmax_precision`` other than the input
    type. Exact up to summation order (1e-4).
    """

    name = "decompose-attention"
    stage = "decompose"
    answers = (
        FixLink("unsupported-op", "Attention"),
        FixLink("opset-not-registered", "Attention"),
    )
    op_types: ClassVar[frozenset[str] | None] = frozenset({"Attention"})
    safe = True
    tolerance = 1e-4
    rtol = 1e-4
    counted = "Attention node(s)"

    def rewrite(self, rw: Rewriter, site: Site) -> Emitter | str:
        import numpy as np
        from onnx import TensorProto

        q, k, v, mask = (site.input(i) for i in (Q, K, V, MASK))
        if site.input(PAST_KEY) or site.input(PAST_VALUE):
            return "it reads past key/value state (a decoder step with a cache)"
        read = [site.output(i) for i in (PRESENT_KEY, PRESENT_VALUE, QK_OUTPUT)
                if site.output(i) and consumers(rw.model, site.output(i))]
        if read:
            return f"its output(s) {', '.join(read)} are read (cache or debug outputs)"
        elem = rw.float_type(q)
        precision = site.attr("softmax_precision", None)
        if precision is not None and int(precision) not in (0, elem):
            return f"softmax_precision {precision} differs from the input type"
        em = Emitter(rw, site)
        rank = rw.rank(q)
        q_heads, kv_heads = int(site.attr("q_num_heads", 0)), int(site.attr("kv_num_heads", 0))
        if rank == 3:
            if q_heads <= 0 or kv_heads <= 0:
                return "3-D inputs need q_num_heads and kv_num_heads"
            q = em.transpose(em.reshape(q, [0, 0, q_heads, -1]), [0, 2, 1, 3])
            k = em.transpose(em.reshape(k, [0, 0, kv_heads, -1]), [0, 2, 1, 3])
            v = em.transpose(em.reshape(v, [0, 0, kv_heads, -1]), [0, 2, 1, 3])
        elif rank == 4:
            q_shape, k_shape = _shape(rw, site.input(Q), rank), _shape(rw, site.input(K), rank)
            q_dim, kv_dim = q_shape[1], k_shape[1]
            if not isinstance(q_dim, int) or not isinstance(kv_dim, int):
                return "the head counts (axis 1 of Q and K) must be static"
            q_heads, kv_heads = q_dim, kv_dim
        else:
            return "the rank of Q is unknown (3 or 4 expected)"
        head = head_size(rw, site, rank, q_heads)
        if kv_heads != q_heads:
            if q_heads % kv_heads:
                return f"{q_heads} query heads do not group over {kv_heads} key/value heads"
            k = repeat_heads(em, k, q_heads // kv_heads, q_heads, last_size(rw, site.input(K), rank, kv_heads))
            v = repeat_heads(em, v, q_heads // kv_heads, q_heads, last_size(rw, site.input(V), rank, kv_heads))
        scale = site.attr("scale", None)
        root = math.sqrt(float(scale) if scale is not None else 1.0 / math.sqrt(head))
        factor = em.scalar(root, elem, "sqrt_scale")
        scores = em.op("MatMul", [em.op("Mul", [q, factor]), em.transpose(em.op("Mul", [k, factor]), [0, 1, 3, 2])])
        softcap = float(site.attr("softcap", 0.0))
        if softcap > 0:
            cap = em.scalar(softcap, elem, "softcap")
            scores = em.op("Mul", [em.op("Tanh", [em.op("Div", [scores, cap])]), cap])
        keep = None  # bool mask of the kept scores, when the node has a bool attn_mask
        if site.attr("is_causal", 0):
            s_len, t_len = sequence_lengths(rw, site, rank)
            causal = np.tril(np.ones((s_len, t_len), dtype=bool))  # key j <= query i (no past keys)
            keep = em.const(causal, "causal")
        if mask and rw.elem_type(mask) == TensorProto.BOOL:
            keep = mask if keep is None else em.op("And", [mask, keep])
        elif mask:
            scores = em.op("Add", [scores, mask])
        if keep is not None:
            penalty = em.op("Where", [keep, em.scalar(0.0, elem, "zero"), em.scalar(-np.inf, elem, "minus_inf")])
            scores = em.op("Add", [scores, penalty])
        probs = em.op("Softmax", [scores], axis=-1)
        if mask and rw.elem_type(mask) == TensorProto.BOOL:
            # a query row whose keys are all masked gives zeros (the definition's errata), not NaN
            assert keep is not None  # a bool mask always sets keep just above
            kept = em.cast(em.reduce("ReduceMax", em.cast(keep, TensorProto.FLOAT), [-1], 1), TensorProto.BOOL)
            probs = em.op("Where", [kept, probs, em.scalar(0.0, elem, "zero")])
        context = em.op("MatMul", [probs, v])
        if rank == 3:
            context = em.reshape(em.transpose(context, [0, 2, 1, 3]), [0, 0, -1])
        em.finish(context, site.output(Y))
        return em


def head_size(rw: Rewriter, site: Site, rank: int, q_heads: int) -> int:
    return last_size(rw, site.input(Q), rank, q_heads)


def last_size(rw: Rewriter, value: str, rank: int, heads: int) -> int:
    """The head size of Q, K or V: its last axis (4-D), or that over the heads (3-D)."""
    info = rw.info(value)
    last = info.shape[-1] if info is not None and info.shape else None
    if not isinstance(last, int):
        raise Unsupported(f"the last axis of '{value}' must be static")
    return last if rank == 4 else last // heads


def _shape(rw: Rewriter, name: str, rank: int) -> "Shape":
    """The shape of Q or K, which must have Q's rank."""
    info = rw.info(name)
    if info is None or info.shape is None or len(info.shape) != rank:
        raise Unsupported(f"the shape of '{name}' is unknown or not of rank {rank} (give --input-shape)")
    return info.shape


def sequence_lengths(rw: Rewriter, site: Site, rank: int) -> tuple[int, int]:
    axis = 2 if rank == 4 else 1
    q, k = _shape(rw, site.input(Q), rank), _shape(rw, site.input(K), rank)
    s_len, t_len = q[axis], k[axis]
    if not isinstance(s_len, int) or not isinstance(t_len, int):
        raise Unsupported("is_causal needs static sequence lengths (give --input-shape)")
    return s_len, t_len


def repeat_heads(em: Emitter, value: str, groups: int, heads: int, head: int) -> str:
    """[B, Hkv, T, h] -> [B, Hkv * groups, T, h], each head repeated ``groups`` times in a row."""
    grouped = em.op("Expand", [em.unsqueeze(value, [2]), em.ints([1, 1, groups, 1, 1], "groups")])
    return em.reshape(grouped, [0, heads, -1, head])
