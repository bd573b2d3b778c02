"""decompose-contrib-embed-layer-normalization: onnxruntime's com.microsoft EmbedLayerNormalization into Gathers + LayerNorm arithmetic."""

from __future__ import annotations

from typing import ClassVar

from atccheck.passes._formulas import normalize, scale_shift
from atccheck.passes._rewrite import ContribDecomposition, Emitter, Rewriter, Site, Unsupported
from atccheck.passes.base import register_pass

DEFAULT_EPSILON = 1e-12  # the schema onnxruntime 1.32 registers
(IDS, SEGMENT_IDS, WORD, POSITION, SEGMENT, GAMMA, BETA, MASK, POSITION_IDS) = range(9)
OUTPUT, MASK_INDEX, EMBEDDING_SUM = range(3)


@register_pass
class DecomposeContribEmbedLayerNormalization(ContribDecomposition):
    """Rewrite ``com.microsoft::EmbedLayerNormalization`` as Gathers, Adds and layer normalization.

    onnxruntime's BERT fusion writes one node for the embedding block: ``word_embedding``
    rows of ``input_ids`` [B, S], plus ``position_embedding`` rows (of ``position_ids`` when
    given, else 0..S-1), plus ``segment_embedding`` rows of ``segment_ids`` when given; then
    layer normalization over the hidden axis with ``gamma``, ``beta``, epsilon default
    1e-12. The optional ``embedding_sum`` output is the sum before normalization; the
    ``mask_index`` output (int32 [B]) is the count of ones in each ``mask`` row, zeros without a
    mask. Positions 0..S-1 need a static sequence length, zeros without a mask a static batch.
    Statistics in float32. The com.microsoft import is removed here once no node uses it. Exact.
    """

    name = "decompose-contrib-embed-layer-normalization"
    op_types: ClassVar[frozenset[str] | None] = frozenset({"EmbedLayerNormalization"})
    tolerance = 1e-5
    rtol = 1e-5
    counted = "EmbedLayerNormalization node(s)"

    def rewrite(self, rw: Rewriter, site: Site) -> Emitter | str:
        import numpy as np
        from onnx import TensorProto

        ids = site.input(IDS)
        elem = rw.float_type(site.input(WORD))
        info = rw.info(ids)
        shape = info.shape if info is not None else None
        if shape is None or len(shape) != 2:
            return "the shape of input_ids [B, S] is unknown"
        em = Emitter(rw, site)
        total = em.op("Gather", [site.input(WORD), ids], axis=0)
        if site.input(POSITION_IDS):
            positions = em.op("Gather", [site.input(POSITION), site.input(POSITION_IDS)], axis=0)
        else:
            if not isinstance(shape[1], int):
                raise Unsupported("positions 0..S-1 need a static sequence length (give --input-shape)")
            positions = em.slice(site.input(POSITION), [0], [shape[1]], [0])
        sum_out = site.output(EMBEDDING_SUM) or None
        segments = site.input(SEGMENT_IDS) and site.input(SEGMENT)
        total = em.op("Add", [total, positions], None if segments else sum_out)
        if segments:
            total = em.op("Add", [total, em.op("Gather", [site.input(SEGMENT), site.input(SEGMENT_IDS)], axis=0)],
                          sum_out)
        epsilon = float(site.attr("epsilon", DEFAULT_EPSILON))
        normalized = normalize(em, total, [-1], epsilon, elem, stash=TensorProto.FLOAT)
        scale_shift(em, normalized, site.input(GAMMA), site.input(BETA), site.output(OUTPUT))
        if site.output(MASK_INDEX):
            if site.input(MASK):
                ones = em.op("Equal", [site.input(MASK), em.const(np.array(1, np.int32), "one")])
                counts = em.reduce("ReduceSum", em.cast(ones, TensorProto.INT32), [1], keepdims=0)
                em.op("Identity", [counts], site.output(MASK_INDEX))
            else:
                if not isinstance(shape[0], int):
                    raise Unsupported("a mask_index of zeros needs a static batch size")
                em.op("Identity", [em.const(np.zeros(shape[0], np.int32), "zeros")], site.output(MASK_INDEX))
        return em
