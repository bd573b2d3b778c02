"""decompose-rotary-embedding: RotaryEmbedding (opset 23) into Slice/Mul/Add/Concat arithmetic."""

from __future__ import annotations

from typing import ClassVar

from atccheck.passes._rewrite import Decomposition, Emitter, Rewriter, Site
from atccheck.passes.base import FixLink, register_pass


@register_pass
class DecomposeRotaryEmbedding(Decomposition):
    """Rewrite RotaryEmbedding (opset 23) as Gather, Slice, Mul, Sub/Add and Concat.

    RotaryEmbedding has no earlier version and no plugin. The ONNX definition: the first
    ``rotary_embedding_dim`` (default: the head size) values of each head are split into
    halves x1, x2 (``interleaved`` 0) or even/odd pairs (1); with ``cos``/``sin`` the cache rows
    of ``position_ids`` (Gather; without ``position_ids`` the caches are already
    [B, S, dim/2]), ``x1 cos - x2 sin`` and ``x1 sin + x2 cos`` replace them, the rest of the
    head passes through. 4-D input is [B, heads, S, head]; 3-D input [B, S, hidden] is viewed
    as [B, S, num_heads, head]. Even/odd pairs are taken by a Reshape to [..., dim/2, 2] and
    unit-step Slices (ATC takes no stepped Slice on the last axis). Needs the head size (last
    axis) static. Exact up to float rounding.
    """

    name = "decompose-rotary-embedding"
    stage = "decompose"
    answers = (
        FixLink("unsupported-op", "RotaryEmbedding"),
        FixLink("opset-not-registered", "RotaryEmbedding"),
    )
    op_types: ClassVar[frozenset[str] | None] = frozenset({"RotaryEmbedding"})
    safe = True
    tolerance = 1e-5
    rtol = 1e-5
    counted = "RotaryEmbedding node(s)"

    def rewrite(self, rw: Rewriter, site: Site) -> Emitter | str:
        x, cos, sin, position_ids = (site.input(k) for k in range(4))
        rw.float_type(x)
        info = rw.info(x)
        if info is None or info.shape is None or len(info.shape) not in (3, 4) or not isinstance(info.shape[-1], int):
            return "the input's rank (3 or 4) and last axis must be known"
        heads = int(site.attr("num_heads", 0))
        em = Emitter(rw, site)
        if len(info.shape) == 3:
            if heads <= 0 or info.shape[-1] % heads:
                return f"a 3-D input needs num_heads dividing its hidden size {info.shape[-1]}"
            head = info.shape[-1] // heads
            view = em.reshape(x, [0, 0, heads, head])  # B, S, N, h
            cache_axis = 2
        else:
            head = info.shape[-1]
            view = x  # B, N, S, h
            cache_axis = 1
        dim = int(site.attr("rotary_embedding_dim", 0)) or head
        if dim % 2 or dim > head:
            return f"rotary_embedding_dim {dim} for head size {head}"
        if position_ids:
            cos = em.op("Gather", [cos, position_ids], axis=0)
            sin = em.op("Gather", [sin, position_ids], axis=0)
        cos, sin = em.unsqueeze(cos, [cache_axis]), em.unsqueeze(sin, [cache_axis])
        result = rotate(em, view, cos, sin, dim, head, bool(site.attr("interleaved", 0)))
        if len(info.shape) == 3:
            result = em.reshape(result, [0, 0, info.shape[-1]])
        em.finish(result, site.output(0))
        return em


def rotate(em: Emitter, view: str, cos: str, sin: str, dim: int, head: int, interleaved: bool) -> str:
    """Rotate the first ``dim`` values of each head of a 4-D ``view`` (last axis ``head``) by
    ``cos``/``sin`` (broadcastable to [..., dim/2]); the rest of the head passes through."""
    half = dim // 2
    rotated = em.slice(view, [0], [dim], [-1]) if dim < head else view
    if interleaved:  # even/odd pairs, without a stepped Slice on the last axis
        pairs = em.reshape(rotated, [0, 0, 0, half, 2])
        x1 = em.reshape(em.slice(pairs, [0], [1], [-1]), [0, 0, 0, half])
        x2 = em.reshape(em.slice(pairs, [1], [2], [-1]), [0, 0, 0, half])
    else:
        x1, x2 = em.slice(rotated, [0], [half], [-1]), em.slice(rotated, [half], [dim], [-1])
    real = em.op("Sub", [em.op("Mul", [x1, cos]), em.op("Mul", [x2, sin])])
    imag = em.op("Add", [em.op("Mul", [x1, sin]), em.op("Mul", [x2, cos])])
    if interleaved:
        joined = em.op("Concat", [em.unsqueeze(real, [-1]), em.unsqueeze(imag, [-1])], axis=-1)
        result = em.reshape(joined, [0, 0, 0, dim])
    else:
        result = em.op("Concat", [real, imag], axis=-1)
    if dim < head:
        result = em.op("Concat", [result, em.slice(view, [dim], [head], [-1])], axis=-1)
    return result
