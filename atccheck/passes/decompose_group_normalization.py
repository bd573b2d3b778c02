"""decompose-group-normalization: GroupNormalization (opset 18/21) into Reshape + ReduceMean arithmetic."""

from __future__ import annotations

from typing import ClassVar

from atccheck.passes._formulas import normalize
from atccheck.passes._rewrite import Decomposition, Emitter, Rewriter, Site
from atccheck.passes.base import FixLink, register_pass

# GroupNormalization-21 made scale and bias per channel ([C]); version 18 has them per group.
PER_CHANNEL_SINCE = 21


@register_pass
class DecomposeGroupNormalization(Decomposition):
    """Rewrite GroupNormalization as Reshape to (N, G, -1), normalization, Reshape back, scale, bias.

    Applies to standard-domain ``GroupNormalization`` nodes the target profile does not
    register at the model opset (no CANN profile registers it), or that a finding names this
    pass for. The statistics are the ReduceMean/Sub/Pow/ReduceMean/Add/Sqrt/Div sequence over
    the last axis of the (N, num_groups, -1) view, so no InstanceNormalization is needed.
    Scale and bias follow the version the model opset selects: GroupNormalization-18 (model
    opset 18-20) has them per group, shape [num_groups], applied on the grouped view;
    GroupNormalization-21 has them per channel, shape [C], applied as [C, 1, ..., 1] after the
    reshape back. ``stash_type`` (21) casts for the statistics when it differs from the input
    type. Needs the input rank; the shape to restore is a constant when the input shape is
    static and a Shape node otherwise. Exact up to float rounding.
    """

    name = "decompose-group-normalization"
    stage = "decompose"
    answers = (
        FixLink("unsupported-op", "GroupNormalization"),
        FixLink("opset-not-registered", "GroupNormalization", named=False),
    )
    op_types: ClassVar[frozenset[str] | None] = frozenset({"GroupNormalization"})
    safe = True
    tolerance = 1e-5
    counted = "GroupNormalization node(s)"

    def rewrite(self, rw: Rewriter, site: Site) -> Emitter | str:
        x, scale, bias = site.input(0), site.input(1), site.input(2)
        elem = rw.float_type(x)
        rank = rw.rank(x)
        if rank is None or rank < 2:
            return "the input rank is unknown (or below 2)"
        if site.attr("num_groups") is None:
            return "it has no num_groups attribute"
        groups = int(site.attr("num_groups"))
        shape = rw.static_shape(x)
        em = Emitter(rw, site)
        batch = shape[0] if shape else 0  # Reshape copies a 0 from the input
        grouped = em.reshape(x, [batch, groups, -1])
        normalized = normalize(em, grouped, [-1], float(site.attr("epsilon", 1e-5)), elem,
                               stash=int(site.attr("stash_type", 1)))
        per_channel = rw.opset >= PER_CHANNEL_SINCE
        if not per_channel:
            normalized = em.op("Add", [em.op("Mul", [normalized, _as(em, rw, scale, [-1, 1])]),
                                       _as(em, rw, bias, [-1, 1])])
        target = em.ints(shape, "shape") if shape else em.op("Shape", [x])
        y = site.output(0)
        restored = em.op("Reshape", [normalized, target], None if per_channel else y)
        if per_channel:
            ones = [1] * (rank - 2)
            em.op("Add", [em.op("Mul", [restored, _as(em, rw, scale, [-1, *ones])]),
                          _as(em, rw, bias, [-1, *ones])], y)
        self.replaced.extend([scale, bias])
        return em


def _as(em: Emitter, rw: Rewriter, name: str, shape: list[int]) -> str:
    """A 1-D parameter reshaped for broadcasting: a new constant when it is one, else a Reshape."""
    value = rw.const_value(name)
    if value is not None:
        return em.const(value.reshape(shape), "param")
    return em.reshape(name, shape)
